"""Recorded steps in words: which fields of an action say something, and a step's move in a
few words (the step log, the reward debugger, the button a typed action equals)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openenv.core.views import ActionChoice


def set_fields(action: dict[str, Any]) -> dict[str, Any]:
    """The fields that say something about a move: unset ones (None) and empty metadata out."""
    return {k: v for k, v in action.items() if v is not None and not (k == "metadata" and not v)}


def action_text(step: dict[str, Any], limit: int = 60) -> str:
    """A step's move in a few words: the label of the button pressed, else the action's set
    fields (a single field: its value), cut to ``limit`` characters."""
    label = step.get("label")
    action = step.get("action") or {}
    if isinstance(label, str) and label:
        text = label
    elif isinstance(action.get("tool_name"), str):  # a tool call: name(argument=value, ...)
        arguments = action.get("arguments")
        args = arguments.items() if isinstance(arguments, dict) else ()
        text = f"{action['tool_name']}({', '.join(f'{k}={v!r}' for k, v in args)})"
    else:
        shown = set_fields(step.get("action") or {})
        if len(shown) == 1:
            text = str(next(iter(shown.values())))
        else:
            text = json.dumps(shown, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def step_error(step: dict[str, Any]) -> str | None:
    """What went wrong in a step, when its observation says so: a tool call's
    ``error`` (its ``error_type``, or its message), else ``None``."""
    observation = step.get("observation")
    error = observation.get("error") if isinstance(observation, dict) else None
    if not error:
        return None
    if isinstance(error, dict):
        kind = error.get("error_type") or error.get("message") or "error"
        return str(kind)
    return str(error)


def label_of(payload: dict[str, Any], legal: list[ActionChoice]) -> str | None:
    """The label of the legal action ``payload`` is (unset fields aside), if it is one."""
    fields = set_fields(payload)
    for choice in legal:
        if set_fields(choice.fields()) == fields:
            return choice.label
    return None
