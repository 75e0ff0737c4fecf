"""One client, called the way the caller is: results in plain code, awaitables in async code."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator

import pytest
from coding_env import CodingEnv
from conftest import api_app, served
from echo_env import EchoEnv
from grid_world_env import GridWorldAction, GridWorldEnv, GridWorldObservation, GridWorldState

from openenv.client import GenericEnvClient
from openenv.client.modes import Pending
from openenv.core import MixedModes, ResetNeeded

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # no "never awaited" below


@pytest.fixture(scope="module")
def grid() -> Iterator[str]:
    with served(api_app("grid_world_env.server.app:app")) as url:
        yield url


@pytest.fixture(scope="module")
def echo() -> Iterator[str]:
    with served(api_app("echo_env.server.app:app")) as url:
        yield url


def test_plain_code_gets_results_not_coroutines(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    first = env.reset(seed=0, episode_id="plain")
    assert isinstance(first.observation, GridWorldObservation)
    step = env.step(GridWorldAction(action="DOWN"))
    assert (step.observation.x, step.done) == (1, False)
    state = env.state()
    assert isinstance(state, GridWorldState) and state.step_count == 1
    assert env.close() is None
    assert env._modes.mode == "sync"


def test_with_block_connects_and_closes(grid: str) -> None:
    with GridWorldEnv(base_url=grid) as env:
        assert env._ws is not None  # connected on entry
        env.reset()
        assert env.step({"action": "RIGHT"}).observation.y == 1
    assert env._ws is None


def test_a_subclass_s_own_coroutine_methods_answer_plain_code(grid: str) -> None:
    with GridWorldEnv(base_url=grid) as env:
        env.reset()
        assert env.step_move("DOWN").observation.x == 1  # async def step_move in the client
    assert getattr(CodingEnv.run, "__openenv_dual__", False)  # every env client's, like it


async def test_async_code_gets_awaitables(grid: str) -> None:
    async with GridWorldEnv(base_url=grid) as env:
        assert (await env.reset(episode_id="a")).observation.x == 0
        assert (await env.step_move("DOWN")).observation.x == 1
        assert (await env.state()).episode_id == "a"
        assert env._modes.mode == "async"


async def test_awaited_without_async_with_the_first_call_decides(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    pending = env.reset()
    assert isinstance(pending, Pending)
    assert (await pending).observation.x == 0
    assert asyncio.iscoroutine(coro := env.step({"action": "DOWN"}))  # async from now on
    assert (await coro).observation.x == 1
    await env.close()


async def test_many_async_clients_step_concurrently_on_one_loop(grid: str) -> None:
    envs = [GridWorldEnv(base_url=grid) for _ in range(3)]
    results = await asyncio.gather(*(env.reset(episode_id=f"e{i}") for i, env in enumerate(envs)))
    assert [r.observation.x for r in results] == [0, 0, 0]
    await asyncio.gather(*(env.close() for env in envs))


async def test_a_first_call_is_a_coroutine_tasks_take(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    task = asyncio.create_task(env.reset(episode_id="task"))
    assert "Task" in repr(task) and env._modes.mode is None  # asyncio's look ran nothing
    assert (await task).observation.x == 0 and env._modes.mode == "async"
    await env.close()


async def test_under_a_running_loop_a_result_used_as_such_runs_blocking(grid: str) -> None:
    """A Jupyter cell runs inside an event loop: `env.reset().observation` must still work."""
    env = GridWorldEnv(base_url=grid)
    assert env.reset(episode_id="cell").observation.x == 0  # used: ran, the client is sync
    step = env.step({"action": "DOWN"})  # sync now: a plain result even under the loop
    assert isinstance(step.observation, GridWorldObservation) and step.observation.x == 1
    with pytest.raises(TypeError, match="can't be used in 'await' expression"):
        await env.state()  # ran already: a sync client's results are plain values
    env.close()


async def test_a_pending_call_is_an_awaitable_or_a_result_never_both(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    pending = env.reset()
    assert repr(pending).startswith("StepResult")  # repr is a use: it runs the call
    assert (await pending).observation.x == 0  # awaiting a resolved result gives it back
    env.close()
    other = GridWorldEnv(base_url=grid)
    awaited = other.reset()
    await awaited
    with pytest.raises(RuntimeError, match="awaited already"):
        _ = awaited.observation
    await other.close()


async def test_a_pending_call_neither_awaited_nor_used_warns(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    with pytest.warns(RuntimeWarning, match=r"reset\(\) was neither awaited nor used"):
        env.reset()  # dropped on the floor: like a coroutine never awaited
        gc.collect()
    assert env._modes.mode is None and env._ws is None  # it never ran


async def test_an_awaited_client_refuses_plain_calls_clearly(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    await env.reset()
    errors: list[BaseException] = []

    def plain() -> None:  # a thread without a loop: plain code
        try:
            env.step({"action": "DOWN"})
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=plain)
    thread.start()
    await asyncio.to_thread(thread.join)
    assert isinstance(errors[0], MixedModes) and "used with await" in str(errors[0])
    with pytest.raises(MixedModes):
        env.sync()
    assert (await env.step({"action": "DOWN"})).observation.x == 1  # still usable async
    await env.close()


def test_a_plain_client_refuses_async_with(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    env.reset()

    async def inside() -> None:
        async with env:
            pass

    with pytest.raises(MixedModes, match="plain code"):
        asyncio.run(inside())
    env.close()


def test_sync_wrapper_and_plain_client_share_one_mode(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    with env.sync() as blocking:
        blocking.reset()
        assert env.step({"action": "DOWN"}).observation.x == 1  # the same session
        assert blocking.state().step_count == 1


def test_tools_answer_plain_code(echo: str) -> None:
    with EchoEnv(base_url=echo) as env:
        env.reset()
        names = [tool.name for tool in env.list_tools()]
        assert "echo_message" in names
        assert env.call_tool("echo_message", message="hi") == "hi"


def test_errors_come_back_typed_in_plain_code(grid: str) -> None:
    with GenericEnvClient(base_url=grid) as env:
        with pytest.raises(ResetNeeded):
            env.step({"action": "DOWN"})
        assert env.reset().observation["x"] == 0
