"""After the server closes a session, reset() starts anew on a new one; step() says it is lost."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import api_app, served
from grid_world_env import GridWorldAction, GridWorldEnv

from openenv.core import ResetNeeded, SessionLost


@pytest.fixture(scope="module")
def app() -> Any:
    app = api_app("grid_world_env.server.app:app", session_timeout_s=30)
    return app


@pytest.fixture(scope="module")
def grid(app: Any) -> Iterator[str]:
    with served(app) as url:
        yield url


def close_every_session(app: Any, reason: str = "closed by the operator") -> None:
    """End every live session on the server's own loop, as a time limit or an operator would."""
    manager = app.state.openenv.manager
    loop = manager._reaper.get_loop()  # the server's loop (the reaper runs while sessions live)
    for session in manager.sessions():
        asyncio.run_coroutine_threadsafe(manager.close(session.id, reason), loop).result(60)
    assert manager.active == 0


def test_after_a_server_side_close_reset_opens_a_new_session(app: Any, grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    env.reset(seed=0)
    env.step(GridWorldAction(action="DOWN"))
    close_every_session(app)
    with pytest.raises(SessionLost) as lost:
        env.step(GridWorldAction(action="DOWN"))  # the episode is gone: say so, typed
    assert "reset()" in str(lost.value)
    result = env.reset(seed=0)  # a new session, transparently
    assert (result.observation.x, result.observation.y) == (0, 0)
    assert env.step(GridWorldAction(action="DOWN")).observation.x == 1
    env.close()


def test_any_call_after_the_close_says_the_episode_is_lost(app: Any, grid: str) -> None:
    with GridWorldEnv(base_url=grid) as env:
        env.reset(seed=0)
        close_every_session(app, "over its time limit")
        with pytest.raises(SessionLost, match="reset\\(\\) starts a new one"):
            env.state()
        with pytest.raises(ResetNeeded):  # SessionLost is a ResetNeeded: one except for both
            env.step(GridWorldAction(action="DOWN"))
        assert env.reset(seed=0).observation.x == 0
        assert env.state().step_count == 0


async def test_async_clients_reopen_on_reset_too(app: Any, grid: str) -> None:
    async with GridWorldEnv(base_url=grid) as env:
        await env.reset(seed=0)
        await asyncio.to_thread(close_every_session, app)
        with pytest.raises(SessionLost):
            await env.step(GridWorldAction(action="DOWN"))
        assert (await env.reset()).observation.x == 0
        assert (await env.step(GridWorldAction(action="DOWN"))).observation.x == 1
