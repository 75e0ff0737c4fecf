"""Typed client of the reasoning gym server (no reasoning-gym needed on the client side)."""

from __future__ import annotations

from openenv.client import EnvClient
from reasoning_gym_env.models import ReasoningGymAction, ReasoningGymObservation, ReasoningGymState


class ReasoningGymEnv(EnvClient[ReasoningGymAction, ReasoningGymObservation, ReasoningGymState]):
    """``async with ReasoningGymEnv(base_url=...) as env`` or ``ReasoningGymEnv(...).sync()``."""
