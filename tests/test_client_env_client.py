"""The client as a notebook or trainer uses it: typed, generic, async and blocking."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from conftest import api_app, free_port, served
from grid_world_env import GridWorldAction, GridWorldEnv, GridWorldObservation, GridWorldState

from openenv.client import GenericEnvClient
from openenv.client.env_client import ws_url
from openenv.core import (
    CallTimeout,
    ClientError,
    ConnectFailed,
    ConnectionLost,
    InvalidAction,
    ResetNeeded,
    ServerError,
)


@pytest.fixture(scope="module")
def grid() -> Iterator[str]:
    with served(api_app("grid_world_env.server.app:app", max_concurrent_envs=3)) as url:
        yield url


@pytest.fixture(scope="module")
def probe() -> Iterator[str]:
    with served(api_app("wire_apps:app")) as url:
        yield url


async def test_async_context_manager_gives_typed_results(grid: str) -> None:
    async with GridWorldEnv(base_url=grid) as env:
        first = await env.reset(episode_id="walk-1")
        assert isinstance(first.observation, GridWorldObservation)
        step = await env.step(GridWorldAction(action="DOWN"))
        assert (step.observation.x, step.reward, step.done) == (1, pytest.approx(-0.1), False)
        state = await env.state()
        assert isinstance(state, GridWorldState)
        assert (state.episode_id, state.step_count, state.x) == ("walk-1", 1, 1)


async def test_a_typed_client_accepts_a_dict_action_and_validates_it(grid: str) -> None:
    async with GridWorldEnv(base_url=grid) as env:
        await env.reset()
        assert (await env.step({"action": "RIGHT"})).observation.y == 1
        with pytest.raises(InvalidAction) as refused:  # checked before it is sent
            await env.step({"action": "SIDEWAYS"})
        assert refused.value.code == "VALIDATION_ERROR"
        assert "'UP', 'DOWN', 'LEFT' or 'RIGHT'" in str(refused.value)


def test_sync_wrapper_is_a_context_manager(grid: str) -> None:
    with GridWorldEnv(base_url=grid).sync() as env:
        env.reset()
        for move in ["DOWN"] * 4 + ["RIGHT"] * 4:
            result = env.step(GridWorldAction(action=move))
        assert (result.reward, result.done) == (1.0, True)
        assert env.state().step_count == 8


def test_generic_client_works_with_plain_dicts(grid: str) -> None:
    with GenericEnvClient(base_url=grid).sync() as env:
        first = env.reset(seed=1)
        assert first.observation["x"] == 0
        result = env.step({"action": "DOWN"})
        assert isinstance(result.observation, dict)
        assert (result.observation["x"], result.done) == (1, False)
        state = env.state()
        assert isinstance(state, dict)
        assert state["step_count"] == 1


async def test_errors_carry_the_server_code_and_message(probe: str) -> None:
    async with GenericEnvClient(base_url=probe) as env:
        with pytest.raises(ClientError) as early:
            await env.step({"label": "x"})
        assert early.value.server_code == "SESSION_ERROR"
        await env.reset()
        with pytest.raises(ClientError) as illegal:
            await env.step({"label": "illegal"})
        assert illegal.value.server_code == "VALIDATION_ERROR"
        assert "refused by the rules" in str(illegal.value)
        with pytest.raises(ClientError) as unknown:
            await env.reset(difficulty=3)
        assert unknown.value.server_code == "VALIDATION_ERROR"
        assert "'difficulty'" in str(unknown.value)
        assert (await env.step({"label": "still fine"})).observation["count"] == 1


async def test_server_errors_come_back_as_the_errors_the_env_raised(probe: str) -> None:
    """Over the wire as in process: ``except ResetNeeded`` / ``except InvalidAction`` work, and
    each is also a ClientError carrying the wire code."""
    async with GenericEnvClient(base_url=probe) as env:
        with pytest.raises(ResetNeeded) as early:
            await env.step({"label": "x"})
        assert isinstance(early.value, ServerError) and early.value.server_code == "SESSION_ERROR"
        await env.reset()
        with pytest.raises(InvalidAction) as illegal:
            await env.step({"label": "illegal"})
        assert isinstance(illegal.value, ClientError) and "refused by the rules" in str(
            illegal.value
        )


async def test_transport_failures_have_their_own_classes() -> None:
    env = GenericEnvClient(base_url=f"http://127.0.0.1:{free_port()}", connect_timeout_s=2)
    with pytest.raises(ConnectFailed):
        await env.reset()
    assert issubclass(CallTimeout, TimeoutError) and issubclass(ConnectionLost, ConnectionError)


async def test_capacity_refusal_reaches_the_client(grid: str) -> None:
    clients = [GenericEnvClient(base_url=grid) for _ in range(3)]
    try:
        for client in clients:
            await client.reset()
        with pytest.raises(ClientError) as refused:
            async with GenericEnvClient(base_url=grid) as extra:
                await extra.reset()
        assert refused.value.server_code == "CAPACITY_REACHED"
    finally:
        for client in clients:
            await client.close()


async def test_connecting_to_nothing_fails_fast_with_a_clear_error() -> None:
    env = GenericEnvClient(base_url=f"http://127.0.0.1:{free_port()}", connect_timeout_s=2)
    with pytest.raises(ClientError) as failed:
        await env.reset()
    assert failed.value.server_code == "CONNECT"
    assert "cannot connect" in str(failed.value)


async def test_a_server_that_never_answers_the_handshake_times_out() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        env = GenericEnvClient(base_url=f"http://127.0.0.1:{port}", connect_timeout_s=0.5)
        with pytest.raises(ClientError) as failed:
            await env.connect()
        assert failed.value.server_code == "CONNECT"


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("http://127.0.0.1:8000", "ws://127.0.0.1:8000/ws"),
        ("http://127.0.0.1:8000/", "ws://127.0.0.1:8000/ws"),
        ("https://user-env.hf.space", "wss://user-env.hf.space/ws"),
        ("localhost:9000", "ws://localhost:9000/ws"),
        ("http://host/envs/grid_world", "ws://host/envs/grid_world/ws"),
    ],
)
def test_base_urls_map_to_the_ws_endpoint(base: str, expected: str) -> None:
    assert ws_url(base) == expected


async def test_close_is_idempotent_and_the_client_reconnects(grid: str) -> None:
    env = GridWorldEnv(base_url=grid)
    await env.reset()
    await env.close()
    await env.close()
    assert (await env.reset()).observation.x == 0
    await env.close()
