"""Who plays the customer: the operator's language model, or a scripted stand-in for tests.

Both take the task's user scenario (``user_scenario.instructions``: why the customer calls,
what they know, how they behave) and answer the agent's last message. A reply containing
``###STOP###`` ends the conversation, as in τ²-bench.

- :class:`LLMUser` asks the operator's OpenAI-compatible endpoint
  (:func:`openenv.core.llm.llm_endpoint` with ``role="user"``), with τ²-bench's kind of system
  prompt (play the customer, reveal only what is asked, say ``###STOP###`` when done).
- :class:`ScriptedUser` is a deterministic stand-in, named as such: it opens with the reason for
  the call, answers questions about who it is with what it knows, says yes to a confirmation,
  and stops when offered "anything else". It does not negotiate or change its mind; it makes
  the env playable and testable without a model, not a benchmark.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from openenv.core.llm import LLMEndpoint

STOP = "###STOP###"
MAX_USER_CHARS = 2_000


class UserSimulator(Protocol):
    """Plays the customer of one task."""

    kind: str

    def opening(self) -> str: ...

    def reply(self, transcript: list[dict[str, str]]) -> str: ...


def instructions_of(task: dict[str, Any]) -> dict[str, str]:
    """The scenario's fields as text (tasks spell them as a dict or, rarely, one string)."""
    raw = (task.get("user_scenario") or {}).get("instructions") or {}
    if isinstance(raw, str):
        return {"reason_for_call": raw, "known_info": "", "unknown_info": "", "task": ""}
    return {
        "reason_for_call": str(raw.get("reason_for_call") or "").strip(),
        "known_info": str(raw.get("known_info") or "").strip(),
        "unknown_info": str(raw.get("unknown_info") or "").strip(),
        "task": str(raw.get("task_instructions") or "").strip(),
    }


_PERSON = [
    (r"\bYou are\b", "I am"), (r"\byou are\b", "I am"), (r"\bYou're\b", "I'm"),
    (r"\byou're\b", "I'm"), (r"\bYou've\b", "I've"), (r"\byou've\b", "I've"),
    (r"\bYou'd\b", "I'd"), (r"\byou'd\b", "I'd"), (r"\bYour\b", "My"), (r"\byour\b", "my"),
    (r"\bYourself\b", "Myself"), (r"\byourself\b", "myself"), (r"\bYou\b", "I"),
    (r"\b(to|for|with|at|about|from|asks|ask|tell|tells|told|give|gives|gave|help|helps|send|"
     r"sends|sent|call|calls|offer|offers|offered|contact|contacts|let|lets|charge|refund|"
     r"than|of) you\b", r"\1 me"),
    (r"\byou\b", "I"),
]  # fmt: skip


def first_person(text: str) -> str:
    """The scenario's second person ("You want to cancel...") as the customer's own words."""
    for pattern, replacement in _PERSON:
        text = re.sub(pattern, replacement, text)
    return re.sub(r"\s*\n\s*", " ", text).strip()


_IDENTITY = re.compile(
    r"\b(user id|user ID|email|name|zip|postal|verify|identity|identify|authenticate|"
    r"confirmation number|reservation (id|number)|order (id|number))\b",
    re.I,
)
_CONFIRM = re.compile(
    r"\b(confirm|proceed|go ahead|shall i|should i|would you like me to|do you want me to|"
    r"is that correct|is this correct|\(yes/no\)|yes or no)\b",
    re.I,
)
_CLOSING = re.compile(
    r"\b(anything else|is there something else|goodbye|have a (great|nice))", re.I
)


class ScriptedUser:
    """A deterministic customer for tests and demos (not a language model; see module doc)."""

    kind = "scripted"
    max_turns = 12

    def __init__(self, task: dict[str, Any]) -> None:
        self.scenario = instructions_of(task)
        self.turns = 0

    def opening(self) -> str:
        reason = first_person(self.scenario["reason_for_call"])
        return f"Hi! {reason}".strip()

    def reply(self, transcript: list[dict[str, str]]) -> str:
        self.turns += 1
        said = next((m["content"] for m in reversed(transcript) if m["role"] == "assistant"), "")
        if self.turns >= self.max_turns:
            return f"I have to go now. {STOP}"
        if _CLOSING.search(said):
            return f"No, that's all. Thank you! {STOP}"
        if _CONFIRM.search(said):
            return "Yes, please go ahead."
        if _IDENTITY.search(said):
            known = first_person(self.scenario["known_info"])
            return known or "I'd rather not say."
        return (
            "Okay. "
            + first_person(self.scenario["reason_for_call"]).split(". ")[0].rstrip(".")
            + "."
        )


SYSTEM_PROMPT = """You are playing a customer who contacts a customer-service agent.
Stay in character and follow these instructions; never say you are an AI.

Why you are calling: {reason_for_call}
What you know: {known_info}
What you do not know: {unknown_info}
How to behave: {task}

Write one short message at a time, as the customer would. Reveal information only when it is
asked for or needed. Do not invent information you were not given. When your request is done,
or cannot be done and you accept that, end with the exact token ###STOP### on its own."""


class LLMUser:
    """The customer played by the operator's language model (role ``user``)."""

    kind = "llm"

    def __init__(self, task: dict[str, Any], endpoint: LLMEndpoint) -> None:
        self.scenario = instructions_of(task)
        self.endpoint = endpoint
        self.system = SYSTEM_PROMPT.format(**{k: v or "-" for k, v in self.scenario.items()})

    def opening(self) -> str:
        # The customer speaks first in this env: their first line comes from the model too.
        return self.reply([{"role": "assistant", "content": "Hi! How can I help you today?"}])

    def reply(self, transcript: list[dict[str, str]]) -> str:
        # Roles flip: the agent is the model's "user", the customer is the model itself.
        flipped = [{"role": "system", "content": self.system}]
        for message in transcript:
            if message["role"] == "assistant":
                flipped.append({"role": "user", "content": message["content"]})
            elif message["role"] == "user":
                flipped.append({"role": "assistant", "content": message["content"]})
        answer = self.endpoint.chat(flipped, temperature=0.0, max_tokens=400)
        return str(answer.get("content") or "").strip()[:MAX_USER_CHARS] or STOP
