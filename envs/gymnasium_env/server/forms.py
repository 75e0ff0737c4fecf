"""The action model a server advertises: its JSON schema describes the served env's space."""

from __future__ import annotations

from typing import Annotated, Any

import gymnasium as gym
from pydantic import Field, WithJsonSchema, create_model

from gymnasium_env.models import GymnasiumAction
from gymnasium_env.server import spaces as sp


def action_model(env_id: str) -> type[GymnasiumAction]:
    """``GymnasiumAction`` whose schema gives ``env_id``'s action type and bounds.

    Only the schema changes (clients and the playground's action form read the bounds; the
    stage's sliders come from ``action_sliders()``, per session); validation stays generic
    because a session may switch to another ``env_id`` at reset, and the environment checks
    every action against its own space.
    """
    env = gym.make(env_id)
    try:
        schema = sp.json_schema(env.action_space)
        description = (
            f"An action of the running env: {env_id} takes {env.action_space}; after a reset "
            "to another id, its action_space is in the State tab"
        )
    finally:
        env.close()
    field = Annotated[Any, WithJsonSchema(schema)]
    return create_model(
        "GymnasiumAction",
        __base__=GymnasiumAction,
        __module__=GymnasiumAction.__module__,
        action=(field, Field(description=description)),
    )
