"""``openenv.core.env_server.serialization``: ``openenv`` 0.10's names for turning actions and
observations into and out of JSON; each is one of ours (:mod:`openenv.core.serialization`)."""

from __future__ import annotations

from typing import Any, TypeVar

from openenv.core.serialization import model_from_wire, observation_to_wire
from openenv.core.types import Action, Observation

__all__ = ["deserialize_action", "deserialize_action_with_preprocessing", "serialize_observation"]

ActT = TypeVar("ActT", bound=Action)


def deserialize_action(action_data: dict[str, Any], action_cls: type[ActT]) -> ActT:
    """``action_data`` (JSON) as an ``action_cls``; an invalid one raises ``InvalidAction``."""
    return model_from_wire(action_data, action_cls)


def deserialize_action_with_preprocessing(
    action_data: dict[str, Any], action_cls: type[ActT]
) -> ActT:
    """The same as :func:`deserialize_action`: pydantic already coerces what 0.10 fixed up
    by hand (lists to arrays, numeric strings)."""
    return model_from_wire(action_data, action_cls)


def serialize_observation(observation: Observation) -> dict[str, Any]:
    """``{"observation": ..., "reward": ..., "done": ...}``, as the wire carries it."""
    return observation_to_wire(observation)
