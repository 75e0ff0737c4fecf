"""The servers bench_crowd.py measures (ours): the grid world, and an env whose step waits.

``grid``: the grid world as ``openenv serve`` runs it (without the playground). ``visitors``:
the grid world with its playground at /web (made on first use, so the other servers hold no
Gradio page). ``sleep``: an
environment whose step sleeps ``CROWD_SLEEP_S`` (default 1 s), like a step that waits on a judge,
a model or a subprocess; it declares nothing (the server measures that it waits), unless
``CROWD_STEP_KIND`` says ``io`` or ``cpu``.
"""

from __future__ import annotations

import os
import time
from typing import ClassVar

from grid_world_env.server.environment import GridWorldEnvironment

from openenv.core import Action, Environment, Observation, State
from openenv.server import create_app

SLEEP_S = float(os.environ.get("CROWD_SLEEP_S", "1.0"))


class WaitAction(Action):
    action: str = ""


class WaitObservation(Observation):
    steps: int = 0


class SleepEnvironment(Environment[WaitAction, WaitObservation, State]):
    """Every step waits SLEEP_S seconds, then answers how many steps the episode took."""

    STEP_KIND: ClassVar[str] = os.environ.get("CROWD_STEP_KIND", "auto")

    def __init__(self) -> None:
        self._state = State()

    def reset(self, seed=None, episode_id=None, **kwargs) -> WaitObservation:
        self._state = State(episode_id=episode_id)
        return WaitObservation(reward=0.0)

    def step(self, action: WaitAction) -> WaitObservation:
        time.sleep(SLEEP_S)
        self._state.step_count += 1
        return WaitObservation(steps=self._state.step_count, reward=0.0)

    @property
    def state(self) -> State:
        return self._state


grid = create_app(GridWorldEnvironment, enable_web=False)
sleep = create_app(SleepEnvironment, enable_web=False)


def __getattr__(name: str):  # uvicorn's "crowd_apps:visitors" asks for it by name
    if name == "visitors":
        app = create_app(GridWorldEnvironment, enable_web=True)
        globals()["visitors"] = app
        return app
    raise AttributeError(name)
