"""Delayed rewards: score a whole episode at its end and spread the credit over its steps."""

from __future__ import annotations

from typing import Any

from openenv.core.rubrics.base import Rubric


class TrajectoryRubric(Rubric):
    """Accumulates (action, observation) pairs; scores the trajectory when ``done`` arrives.

    Until the episode ends each call returns ``intermediate_reward``. At the end the call
    returns ``score_trajectory(trajectory)`` (R_final) and ``step_rewards()`` gives the
    temporally discounted credit ``r_t = gamma^(T-1-t) * R_final`` for t = 0..T-1.
    Subclasses implement ``score_trajectory``.
    """

    def __init__(self, gamma: float = 1.0, intermediate_reward: float = 0.0) -> None:
        super().__init__()
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], got {gamma}")
        self.gamma = gamma
        self.intermediate_reward = intermediate_reward
        self._trajectory: list[tuple[Any, Any]] = []
        self.final_score: float | None = None

    def score_trajectory(self, trajectory: list[tuple[Any, Any]]) -> float:
        raise NotImplementedError(f"{type(self).__name__} must implement score_trajectory()")

    def forward(self, action: Any, observation: Any) -> float:
        self._trajectory.append((action, observation))
        if not getattr(observation, "done", False):
            return self.intermediate_reward
        self.final_score = float(self.score_trajectory(list(self._trajectory)))
        return self.final_score

    def step_rewards(self) -> list[float]:
        """Discounted per-step rewards of the finished episode (empty before the end)."""
        if self.final_score is None:
            return []
        steps = len(self._trajectory)
        return [self.final_score * self.gamma ** (steps - 1 - t) for t in range(steps)]

    # The reference's name for the same thing.
    compute_step_rewards = step_rewards

    @property
    def trajectory(self) -> list[tuple[Any, Any]]:
        return list(self._trajectory)

    def reset(self) -> None:
        super().reset()
        self._trajectory = []
        self.final_score = None

    def config(self) -> dict[str, Any]:
        return {"gamma": self.gamma, "intermediate_reward": self.intermediate_reward}
