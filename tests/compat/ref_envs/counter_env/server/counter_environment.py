"""The rules. ``reset(self)`` takes no seed and no episode id (0.10 passes only what a
signature declares); reaching 10 exactly gives 1.0, overshooting gives -1.0; both end it."""

from uuid import uuid4

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata, State

from ..models import CounterAction, CounterObservation


class CounterEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self):
        super().__init__()
        self._state = State(episode_id=str(uuid4()), step_count=0)
        self._count = 0

    def reset(self) -> CounterObservation:
        self._state = State(episode_id=str(uuid4()), step_count=0)
        self._count = 0
        return CounterObservation(count=0, reward=0.0, done=False)

    def step(self, action: CounterAction) -> CounterObservation:
        self._state.step_count += 1
        self._count += action.amount
        done = self._count >= 10
        reward = (1.0 if self._count == 10 else -1.0) if done else 0.0
        return CounterObservation(count=self._count, reward=reward, done=done)

    @property
    def state(self) -> State:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name="counter_env", description="Reach 10 by adding 1 or 2")
