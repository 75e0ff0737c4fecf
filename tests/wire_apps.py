"""A probe environment for the protocol tests, served with ``uvicorn wire_apps:app``.

Each step echoes its ``label``. ``sleep_s`` makes the (sync) step slow, ``busy_s`` makes it
compute (holding the GIL, as an expensive step does); ``hold`` blocks the step
until another session sends ``release`` with the same name; ``illegal`` is refused by the rules,
``crash`` raises, ``done`` ends the episode. ``start`` is drawn from ``self.rng`` at reset, so a
seed makes it reproducible. Server settings come from the environment variables of create_app.
"""

from __future__ import annotations

import threading
import time
import uuid

from pydantic import Field

from openenv.core import Action, Environment, InvalidAction, Observation, State
from openenv.server import create_app

HOLD_LIMIT_S = 30.0
_gates: dict[str, threading.Event] = {}
_gates_lock = threading.Lock()


def _gate(name: str) -> threading.Event:
    with _gates_lock:
        return _gates.setdefault(name, threading.Event())


class ProbeAction(Action):
    label: str = Field(default="", max_length=100)
    sleep_s: float = Field(default=0.0, ge=0, le=10)
    busy_s: float = Field(default=0.0, ge=0, le=10)  # computes (holds the GIL) that long
    hold: str | None = None
    release: str | None = None


class ProbeObservation(Observation):
    label: str = ""
    count: int = 0
    start: int = 0
    released: bool | None = None


class ProbeState(State):
    label: str = ""
    start: int = 0
    level: int = 0


class ProbeEnvironment(Environment[ProbeAction, ProbeObservation, ProbeState]):
    def __init__(self) -> None:
        self._state = ProbeState()

    def reset(self, seed=None, episode_id=None, level: int = 0) -> ProbeObservation:
        start = self.rng.randrange(1_000_000)
        self._state = ProbeState(episode_id=episode_id or str(uuid.uuid4()), start=start)
        self._state.level = level
        return ProbeObservation(start=start, label="reset")

    def step(self, action: ProbeAction) -> ProbeObservation:
        if action.label == "illegal":
            raise InvalidAction("the label 'illegal' is refused by the rules; send another one")
        if action.label == "crash":
            raise RuntimeError("the probe crashed on purpose")
        released = None
        if action.release:
            _gate(action.release).set()
        if action.hold:
            released = _gate(action.hold).wait(HOLD_LIMIT_S)
        time.sleep(action.sleep_s)
        until = time.perf_counter() + action.busy_s
        while time.perf_counter() < until:
            pass
        s = self._state
        s.step_count += 1
        s.label = action.label
        return ProbeObservation(
            label=action.label,
            count=s.step_count,
            start=s.start,
            released=released,
            reward=1.0,
            done=action.label == "done",
        )

    @property
    def state(self) -> ProbeState:
        return self._state


app = create_app(ProbeEnvironment, enable_web=False)


PREFIX = "/envs/grid_world"


def grid_under_prefix():
    """A parent app mounting a grid world server under a prefix, as the catalog mounts an env
    (a ``uvicorn --factory`` target)."""
    from grid_world_env.server.environment import GridWorldEnvironment
    from starlette.applications import Starlette
    from starlette.routing import Mount

    child = create_app(GridWorldEnvironment, max_concurrent_envs=1)
    return Starlette(routes=[Mount(PREFIX, app=child)])
