"""The reference's servers for bench_crowd.py (run with the reference virtualenv's python):
``grid`` is tests/compat/ref_grid_app.py's; ``sleep`` steps by sleeping ``CROWD_SLEEP_S``."""

import importlib
import os
import sys
import time
from pathlib import Path
from uuid import uuid4

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "compat"))
grid = importlib.import_module("ref_grid_app").app

SLEEP_S = float(os.environ.get("CROWD_SLEEP_S", "1.0"))


class WaitAction(Action):
    action: str = ""


class WaitObservation(Observation):
    steps: int = 0


class SleepEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self):
        super().__init__()
        self._state = State(episode_id=str(uuid4()))

    def reset(self, seed=None, episode_id=None, **kwargs) -> WaitObservation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        return WaitObservation(reward=0.0)

    def step(self, action, timeout_s=None, **kwargs) -> WaitObservation:
        time.sleep(SLEEP_S)
        self._state.step_count += 1
        return WaitObservation(steps=self._state.step_count, reward=0.0)

    @property
    def state(self) -> State:
        return self._state


sleep = create_app(
    SleepEnvironment,
    WaitAction,
    WaitObservation,
    env_name="ref_sleep_env",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
)
