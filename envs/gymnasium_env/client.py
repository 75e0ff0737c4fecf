"""Typed client of the Gymnasium server."""

from __future__ import annotations

from gymnasium_env.models import GymnasiumAction, GymnasiumObservation, GymnasiumState
from openenv.client import EnvClient


class GymnasiumEnv(EnvClient[GymnasiumAction, GymnasiumObservation, GymnasiumState]):
    """``async with GymnasiumEnv(base_url=...) as env`` or ``GymnasiumEnv(...).sync()``.

    Choose the environment at reset: ``env.reset(env_id="MountainCar-v0", seed=0)``.
    """
