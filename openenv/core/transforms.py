"""Transforms: server-side post-processing of observations (and their rewards).

They run after the environment's rubric. When a transform changes a reward that has
components, the change is recorded as its own component (``transform:<name>``), so the reward
still equals the weighted total of its components.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast


class Transform:
    """``transform(observation) -> observation``. Subclasses implement ``__call__``."""

    def __call__(self, observation: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(observation)")

    @property
    def name(self) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()


class Compose(Transform):
    """Apply transforms left to right."""

    def __init__(self, *transforms: Transform) -> None:
        self.transforms = list(transforms)

    def __call__(self, observation: Any) -> Any:
        for transform in self.transforms:
            observation = transform(observation)
        return observation


class RewardScale(Transform):
    """Multiply the reward by ``factor``."""

    def __init__(self, factor: float) -> None:
        self.factor = factor

    def __call__(self, observation: Any) -> Any:
        if observation.reward is not None:
            observation.reward = float(observation.reward) * self.factor
        return observation


class RewardClip(Transform):
    """Clip the reward into ``[low, high]``."""

    def __init__(self, low: float = -1.0, high: float = 1.0) -> None:
        self.low, self.high = low, high

    def __call__(self, observation: Any) -> Any:
        if observation.reward is not None:
            observation.reward = min(self.high, max(self.low, float(observation.reward)))
        return observation


class FnTransform(Transform):
    """A transform from a function ``fn(observation) -> observation``."""

    def __init__(self, fn: Callable[[Any], Any], name: str | None = None) -> None:
        self.fn = fn
        self._name = name or cast(str, getattr(fn, "__name__", "transform"))

    @property
    def name(self) -> str:
        return self._name

    def __call__(self, observation: Any) -> Any:
        return self.fn(observation)
