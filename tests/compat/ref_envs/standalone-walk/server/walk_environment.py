"""The rules of the walk; ``reset`` takes the seed and episode id 0.10 may pass, and options."""

from typing import Any

from openenv_core.env_server.interfaces import Environment
from openenv_core.env_server.types import State

try:
    from ..models import WalkAction, WalkObservation
except ImportError:
    from models import WalkAction, WalkObservation

GOAL = 3


class WalkEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self):
        super().__init__()
        self._state = State(step_count=0)
        self._position = 0

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> WalkObservation:
        self._state = State(episode_id=episode_id or "walk", step_count=0)
        self._position = int(kwargs.get("start", 0))
        return WalkObservation(position=self._position, reward=0.0, done=False)

    def step(self, action: WalkAction) -> WalkObservation:
        self._state.step_count += 1
        self._position += action.delta
        done = self._position >= GOAL
        return WalkObservation(position=self._position, reward=1.0 if done else 0.0, done=done)

    @property
    def state(self) -> State:
        return self._state
