"""Who picks the actions of a collected episode.

A :class:`Policy` gets a :class:`Turn` (the chat so far, the observation, the legal actions when
the server lists them, the action's JSON schema) and returns a :class:`Move`.

- :class:`RandomPolicy` (``--provider random``): a uniformly random legal action, or a random
  value of each field the schema enumerates; for tests and baselines, never a teacher.
- :class:`ScriptedPolicy` (``--provider scripted``, the reference's default): always the first
  legal action; a smoke test of the pipeline.
- :class:`TeacherPolicy` (``--provider openai``): a model behind the operator's one
  OpenAI-compatible endpoint (:mod:`openenv.core.llm`); its reply is kept as the assistant
  message.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from openenv.core.llm import LLMEndpoint, LLMUnavailable

MAX_SCHEMA_DEPTH = 8


class PolicyError(RuntimeError):
    """The policy could not produce an action (the episode is counted as failed)."""


@dataclass(frozen=True)
class Choice:
    """A legal action as the server lists it: the button's label and the action's fields."""

    label: str
    action: dict[str, Any]


@dataclass
class Turn:
    """What a policy sees before it acts."""

    messages: list[dict[str, Any]]
    observation: dict[str, Any]
    legal: list[Choice] = field(default_factory=list)
    schema: dict[str, Any] | None = None


@dataclass(frozen=True)
class Move:
    """The action chosen, its label (a legal action's) and what the policy said."""

    action: dict[str, Any]
    label: str | None = None
    reply: str | None = None


class Policy(Protocol):
    """Picks one action per turn; ``name`` is what metadata.json records as the provider."""

    name: str

    def choose(self, turn: Turn) -> Move: ...


class RandomPolicy:
    """A uniformly random legal action (else random enumerated field values); seeded."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, turn: Turn) -> Move:
        if turn.legal:
            choice = self.rng.choice(turn.legal)
            return Move(choice.action, choice.label)
        if turn.schema is None:
            raise PolicyError("the server lists no legal actions and no action schema")
        return Move(sample_schema(turn.schema, self.rng))


class ScriptedPolicy:
    """The first legal action every turn (the reference's ``scripted`` teacher)."""

    name = "scripted"

    def choose(self, turn: Turn) -> Move:
        if turn.legal:
            return Move(turn.legal[0].action, turn.legal[0].label)
        if turn.schema is None:
            raise PolicyError("the server lists no legal actions and no action schema")
        return Move(sample_schema(turn.schema, None))


class TeacherPolicy:
    """A model behind one OpenAI-compatible endpoint; its reply names or spells the action."""

    name = "openai-compatible"

    def __init__(
        self, endpoint: LLMEndpoint, temperature: float = 0.2, max_tokens: int = 200
    ) -> None:
        self.endpoint = endpoint
        self.temperature = temperature
        self.max_tokens = max_tokens

    def choose(self, turn: Turn) -> Move:
        try:
            message = self.endpoint.chat(
                turn.messages, temperature=self.temperature, max_tokens=self.max_tokens
            )
        except LLMUnavailable as exc:
            raise PolicyError(str(exc)) from exc
        reply = str(message.get("content") or "").strip()
        return parse_reply(reply, turn.legal)


_INDEX = re.compile(r"^\s*(?:action\s*)?#?(\d+)\b", re.IGNORECASE)


def parse_reply(reply: str, legal: list[Choice]) -> Move:
    """The action a model's ``reply`` means: a legal action's number or label, or a JSON
    object of the action's fields (the first one in the text); PolicyError otherwise."""
    match = _INDEX.match(reply)
    if legal and match and int(match.group(1)) < len(legal):
        choice = legal[int(match.group(1))]
        return Move(choice.action, choice.label, reply)
    for choice in legal:
        if reply.strip().strip("`'\".").lower() == choice.label.lower():
            return Move(choice.action, choice.label, reply)
    action = _first_json_object(reply)
    if action is None:
        raise PolicyError(f"the teacher's reply names no action: {reply[:200]!r}")
    label = next((c.label for c in legal if c.action == action), None)
    return Move(action, label, reply)


def _first_json_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def sample_schema(schema: dict[str, Any], rng: random.Random | None) -> dict[str, Any]:
    """An action drawn from a JSON schema's required and enumerated fields (``rng`` None: the
    first value of each); PolicyError for a field it cannot draw (free text)."""
    defs = schema.get("$defs") or {}
    action: dict[str, Any] = {}
    required = set(schema.get("required") or [])
    for name, spec in (schema.get("properties") or {}).items():
        if name == "metadata":
            continue
        try:
            action[name] = _sample(spec, defs, rng, 0)
        except PolicyError:
            if name in required:
                raise PolicyError(f"cannot draw a value for the action field {name!r}") from None
    return action


def _sample(
    spec: dict[str, Any], defs: dict[str, Any], rng: random.Random | None, depth: int
) -> Any:
    if depth > MAX_SCHEMA_DEPTH:
        raise PolicyError("the action schema nests too deeply")
    ref = spec.get("$ref")
    if isinstance(ref, str):
        return _sample(defs.get(ref.rsplit("/", 1)[-1], {}), defs, rng, depth + 1)
    if "const" in spec:
        return spec["const"]
    if spec.get("enum"):
        values = list(spec["enum"])
        return rng.choice(values) if rng else values[0]
    for key in ("anyOf", "oneOf"):
        options = [o for o in spec.get(key) or [] if o.get("type") != "null"]
        if options:
            return _sample(rng.choice(options) if rng else options[0], defs, rng, depth + 1)
    kind = spec.get("type")
    if kind == "boolean":
        return rng.random() < 0.5 if rng else False
    if kind in ("integer", "number"):
        low = spec.get("minimum", spec.get("exclusiveMinimum", 0))
        high = spec.get("maximum", spec.get("exclusiveMaximum", low + 9))
        if kind == "integer":
            return rng.randint(int(low), int(high)) if rng else int(low)
        return rng.uniform(float(low), float(high)) if rng else float(low)
    if "default" in spec:
        return spec["default"]
    raise PolicyError("no value to draw")
