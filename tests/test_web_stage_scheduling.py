"""A playground step runs where the server runs every session's calls: the scheduler's pools,
with their time limit. Steps that wait do not queue behind a few threads, and a step that hangs
ends with a clear notice while the other tabs keep playing."""

from __future__ import annotations

import asyncio
import threading
import time

from openenv.core import Action, Environment, Observation, State
from openenv.server import create_app
from openenv.web.stage.controller import Controller
from tests.conftest import run_async as run

TABS = 16  # more than Python's default executor has threads on a small machine


class Ping(Action):
    hang: bool = False


class Waiting(Environment[Ping, Observation, State]):
    """Each step waits until the test releases it (a judge, a model, a subprocess)."""

    STEP_KIND = "io"
    release = threading.Event()
    stuck = threading.Event()  # a hung step waits on this one
    lock = threading.Lock()
    waiting = 0

    def reset(self, seed=None, episode_id=None) -> Observation:
        return Observation()

    def step(self, action: Ping) -> Observation:
        with Waiting.lock:
            Waiting.waiting += 1
        try:
            (Waiting.stuck if action.hang else Waiting.release).wait(60)
        finally:
            with Waiting.lock:
                Waiting.waiting -= 1
        return Observation(reward=1.0)

    @property
    def state(self) -> State:
        return State()


async def until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


def test_waiting_steps_of_many_tabs_wait_together_not_in_a_queue() -> None:
    app = create_app(Waiting, max_concurrent_envs=TABS + 2, enable_web=False)
    controller = Controller(app.state.openenv)
    Waiting.release.clear()

    async def play() -> None:
        tabs = [controller.new_tab(f"visitor-{n}") for n in range(TABS)]
        for tab in tabs:
            assert await controller.reset(tab, {})
        steps = [asyncio.ensure_future(controller.step(tab, {})) for tab in tabs]
        try:
            await until(lambda: Waiting.waiting == TABS)  # every step in flight at once
        finally:
            Waiting.release.set()
        assert all(await asyncio.gather(*steps))
        assert all(tab.episode.steps[-1]["reward"] == 1.0 for tab in tabs)
        for tab in tabs:
            await controller.close(tab)

    run(play())


def test_a_step_past_the_time_limit_is_said_and_the_other_tabs_keep_playing() -> None:
    app = create_app(Waiting, max_concurrent_envs=4, enable_web=False, call_timeout_s=0.5)
    controller = Controller(app.state.openenv)
    Waiting.release.set()
    Waiting.stuck.clear()

    async def play() -> None:
        hung, other = controller.new_tab("hung"), controller.new_tab("other")
        assert await controller.reset(hung, {}) and await controller.reset(other, {})
        try:
            assert not await controller.step(hung, {"hang": True})
            assert hung.notice.kind == "error" and "0.5" in hung.notice.text, hung.notice.text
            assert await controller.step(other, {})
            assert other.episode.steps[-1]["reward"] == 1.0
        finally:
            Waiting.stuck.set()
        await controller.close(hung)
        await controller.close(other)

    run(play())
