"""The agent's side when a visitor plays the customer (``seat="user"``): a scripted agent.

:class:`ScriptedAgent` is a deterministic stand-in, named as such, that follows the task's
reference solution (``evaluation_criteria.actions``): it looks things up on its own, asks the
customer before each action that changes the database ("Shall I proceed?"), does it on a yes
and skips it on a no, then tells the customer what the task says must be communicated and
asks whether there is anything else. The validator's oracle plays the same reference actions
from the agent's seat (:mod:`tau2_env.server.oracle`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_YES = re.compile(r"\b(yes|yeah|yep|sure|ok|okay|go ahead|please do|proceed|confirm)\b", re.I)
_NO = re.compile(r"\b(no|nope|don't|do not|stop|cancel that)\b", re.I)


def describe(action: dict[str, Any]) -> str:
    """An action in words, for the confirmation question: ``cancel reservation
    (reservation_id: XEHM4B)``; lists of objects as their values (``HAT005 2024-05-20``)."""
    parts = [f"{key}: {_value(value)}" for key, value in (action.get("arguments") or {}).items()]
    text = f"{action['name'].replace('_', ' ')} ({'; '.join(parts)})"
    return text if len(text) <= 400 else text[:399] + "…"


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value) or "none"
    if isinstance(value, dict):
        return " ".join(_value(v) for v in value.values())
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class ScriptedAgent:
    """Plays the reference solution of one task against a human customer."""

    kind = "scripted"

    def __init__(self, task: dict[str, Any], write_tools: frozenset[str]) -> None:
        criteria = task["evaluation_criteria"]
        self.plan: list[dict[str, Any]] = [
            a
            for a in criteria.get("actions") or []
            if a.get("requestor", "assistant") == "assistant"
        ]
        self.writes = write_tools
        self.info = [str(i) for i in criteria.get("communicate_info") or []]
        self.pending: dict[str, Any] | None = None  # a write waiting for the customer's yes
        self.finished = False

    def greeting(self) -> str:
        return "Hi! How can I help you today?"

    def respond(self, customer: str, call: Callable[[str, dict[str, Any]], str]) -> str:
        """Answer the customer's message; ``call(name, arguments)`` runs a tool and records it."""
        notes: list[str] = []
        if self.pending is not None:
            action, self.pending = self.pending, None
            if _YES.search(customer) and not _NO.search(customer):
                result = call(action["name"], dict(action.get("arguments") or {}))
                notes.append(f"Done: {action['name'].replace('_', ' ')}." + _outcome(result))
            else:
                notes.append("Understood, I will not do that.")
        while self.plan:
            action = self.plan[0]
            if action["name"] in self.writes:
                self.plan.pop(0)
                self.pending = action
                notes.append(f"I can {describe(action)}. Shall I proceed? (yes/no)")
                return " ".join(notes)
            call(self.plan.pop(0)["name"], dict(action.get("arguments") or {}))
        if not self.finished:
            self.finished = True
            if self.info:
                notes.append("For your information: " + ", ".join(self.info) + ".")
            else:
                notes.append("I have looked into your request.")
        notes.append("Is there anything else I can help you with?")
        return " ".join(notes)


def _outcome(result: str) -> str:
    return f" ({result[:160]})" if result.startswith("Error") else ""
