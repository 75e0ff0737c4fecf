"""Typed client of the Reasoning Core server (no reasoning-core needed on the client side)."""

from __future__ import annotations

from openenv.client import EnvClient
from reasoning_core_env.models import (
    ReasoningCoreAction,
    ReasoningCoreObservation,
    ReasoningCoreState,
)


class ReasoningCoreEnv(
    EnvClient[ReasoningCoreAction, ReasoningCoreObservation, ReasoningCoreState]
):
    """``async with ReasoningCoreEnv(base_url=...) as env`` or ``ReasoningCoreEnv(...).sync()``."""
