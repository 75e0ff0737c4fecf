"""Reasoning Core: one procedurally generated, verifiable task per episode. Client exports.

The server needs the ``reasoning_core`` extra (``pip install openenv-playground[reasoning_core]``).
"""

from reasoning_core_env.client import ReasoningCoreEnv
from reasoning_core_env.models import (
    ReasoningCoreAction,
    ReasoningCoreObservation,
    ReasoningCoreState,
)

__all__ = [
    "ReasoningCoreAction",
    "ReasoningCoreEnv",
    "ReasoningCoreObservation",
    "ReasoningCoreState",
]
