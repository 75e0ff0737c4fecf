"""One place that turns wire types into JSON payloads and back (server and client use it).

Observation payloads match the ``openenv`` 0.10.x shape::

    {"observation": {<fields>, "metadata": {...}}, "reward": r, "done": d, "metadata": {...}}

``metadata`` is kept inside the observation and repeated at the top level when non-empty.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

import pydantic_core
from pydantic import BaseModel, ValidationError

from openenv.core.errors import InvalidAction
from openenv.core.types import Action, Observation, State, StepResult

ObsT = TypeVar("ObsT", bound=Observation)
ActT = TypeVar("ActT", bound=Action)


def _json_encoder() -> Callable[[Any], str]:
    """Compact JSON, the same text as ``json.dumps(separators=(",", ":"))`` (ASCII escapes,
    ``Infinity``/``NaN``; only exponents are spelt ``1e-7`` instead of ``1e-07``), written by
    pydantic-core about 4x faster; the standard library where pydantic-core is too old."""
    options: dict[str, Any] = {"ensure_ascii": True, "inf_nan_mode": "constants"}
    try:
        pydantic_core.to_json(None, **options)
    except TypeError:  # pydantic-core without these options
        return json.JSONEncoder(separators=(",", ":")).encode
    to_json = pydantic_core.to_json

    def encode(obj: Any) -> str:
        return to_json(obj, **options).decode()

    return encode


dump_json = _json_encoder()  # messages are hot: every step sends and receives one


def load_json(text: str | bytes) -> Any:
    """``json.loads``' result (NaN and Infinity included), parsed by pydantic-core (~4x faster)."""
    return pydantic_core.from_json(text, cache_strings="keys")


MAX_DEPTH = 64  # nesting of a message from outside: deeper is refused, never recursed into


def load_untrusted(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON that anyone may have sent; ``ValueError`` says what is wrong with it (not
    JSON, nested deeper than ``max_depth``, text that is not valid Unicode)."""
    try:
        obj = load_json(text)
    except (ValueError, TypeError, RecursionError) as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    check_depth(obj, max_depth)
    return obj


def check_depth(obj: Any, max_depth: int = MAX_DEPTH) -> None:
    """``ValueError`` when lists and objects nest deeper than ``max_depth`` (no recursion)."""
    stack = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > max_depth:
                raise ValueError(f"nested deeper than {max_depth} levels")
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)


def is_text(value: Any) -> bool:
    """Whether ``value`` is a string that UTF-8 can carry (no lone surrogate)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def observation_to_wire(observation: Observation) -> dict[str, Any]:
    """Serialize an observation as the ``data`` of an observation message (or an HTTP body)."""
    payload: dict[str, Any] = {
        "observation": observation.model_dump(mode="json", exclude={"reward", "done"}),
        "reward": observation.reward,
        "done": observation.done,
    }
    if observation.metadata:
        payload["metadata"] = payload["observation"]["metadata"]
    return payload


def step_result_from_wire(payload: dict[str, Any], observation_cls: type[ObsT]) -> StepResult[ObsT]:
    """Parse an observation payload back into a typed :class:`StepResult`."""
    fields = dict(payload.get("observation") or {})
    if "metadata" in payload and not fields.get("metadata"):
        fields["metadata"] = payload["metadata"]
    reward = payload.get("reward")
    done = bool(payload.get("done", False))
    observation = observation_cls.model_validate({**fields, "reward": reward, "done": done})
    return _step_result_cls(observation_cls)(
        observation=observation, reward=reward, done=done, metadata=payload.get("metadata")
    )


@functools.cache
def _step_result_cls(observation_cls: type) -> type[StepResult[Any]]:
    """``StepResult[observation_cls]``, built once (pydantic keeps it only weakly)."""
    return StepResult[observation_cls]  # type: ignore[valid-type]  # a class known at run time


def state_to_wire(state: State) -> dict[str, Any]:
    return state.model_dump(mode="json")


def model_from_wire(data: Any, cls: type[ActT], *, what: str = "action") -> ActT:
    """Validate ``data`` into ``cls``; failures raise InvalidAction, readably."""
    if isinstance(data, cls):
        return data
    if isinstance(data, BaseModel):
        data = data.model_dump()
    if not isinstance(data, dict):
        raise InvalidAction(f"{what} must be a JSON object, got {type(data).__name__}")
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise InvalidAction(
            f"invalid {what} for {cls.__name__}: {describe_validation(exc)}"
        ) from None


def describe_validation(exc: ValidationError) -> str:
    """A one-line summary of pydantic errors: ``field: message; other: message``."""
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)
