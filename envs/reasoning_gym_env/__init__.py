"""Reasoning Gym: one question per episode, scored by the dataset's own scorer. Client exports.

The server needs the ``reasoning_gym`` extra (``pip install openenv-playground[reasoning_gym]``).
"""

from reasoning_gym_env.client import ReasoningGymEnv
from reasoning_gym_env.models import ReasoningGymAction, ReasoningGymObservation, ReasoningGymState

__all__ = [
    "ReasoningGymAction",
    "ReasoningGymEnv",
    "ReasoningGymObservation",
    "ReasoningGymState",
]
