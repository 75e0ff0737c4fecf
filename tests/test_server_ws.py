"""/ws as a client sees it: every frame answered, bad frames survived, replies correlated."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import api_app, served
from grid_world_env import GridWorldAction, GridWorldEnv
from websockets.asyncio.client import connect

from openenv.client import GenericEnvClient
from openenv.core import ClientError


@pytest.fixture(scope="module")
def probe() -> Iterator[str]:
    with served(api_app("wire_apps:app")) as url:
        yield url


@pytest.fixture(scope="module")
def grid() -> Iterator[str]:
    with served(api_app("grid_world_env.server.app:app")) as url:
        yield url


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws"


async def ask(ws: Any, message: Any) -> dict[str, Any]:
    await ws.send(message if isinstance(message, str | bytes) else json.dumps(message))
    return json.loads(await asyncio.wait_for(ws.recv(), 20))


BAD_FRAMES = [
    pytest.param("{not json", "INVALID_JSON", "not valid JSON", id="malformed-json"),
    pytest.param("[1, 2]", "INVALID_JSON", "got an array", id="json-array"),
    pytest.param("null", "INVALID_JSON", "got null", id="json-null"),
    pytest.param('"reset"', "INVALID_JSON", "got a string", id="json-string"),
    pytest.param(b"\x00\x01binary", "INVALID_JSON", "binary frames", id="binary-frame"),
    pytest.param({"type": "jump"}, "UNKNOWN_TYPE", "'jump'", id="unknown-type"),
    pytest.param({"data": {}}, "UNKNOWN_TYPE", "expected one of", id="missing-type"),
    pytest.param(
        {"type": "step", "data": {"action": "DIAGONAL"}},
        "VALIDATION_ERROR",
        "action",
        id="bad-action",
    ),
    pytest.param(
        {"type": "step", "data": {"action": "UP", "speed": 2}},
        "VALIDATION_ERROR",
        "speed",
        id="unknown-action-field",
    ),
    pytest.param({"type": "step", "data": [1]}, "VALIDATION_ERROR", "JSON object", id="data-array"),
    pytest.param(
        {"type": "reset", "data": {"difficulty": "hard"}},
        "VALIDATION_ERROR",
        "'difficulty'",
        id="unknown-reset-option",
    ),
]


@pytest.mark.parametrize(("frame", "code", "words"), BAD_FRAMES)
async def test_a_bad_frame_gets_an_error_and_the_session_stays_usable(
    grid: str, frame: Any, code: str, words: str
) -> None:
    async with connect(ws_url(grid)) as ws:
        await ask(ws, {"type": "reset", "data": {}})
        await ask(ws, {"type": "step", "data": {"action": "DOWN"}})
        before = await ask(ws, {"type": "state"})

        error = await ask(ws, frame)

        assert error["type"] == "error"
        assert error["data"]["code"] == code
        assert words in error["data"]["message"]
        assert await ask(ws, {"type": "state"}) == before
        moved = await ask(ws, {"type": "step", "data": {"action": "RIGHT"}})
        assert moved["data"]["observation"]["x"] == 1
        assert moved["data"]["observation"]["y"] == 1
        fresh = await ask(ws, {"type": "reset", "data": {}})
        assert fresh["data"]["observation"]["x"] == 0


async def test_illegal_move_and_crashing_env_leave_the_session_usable(probe: str) -> None:
    async with connect(ws_url(probe)) as ws:
        await ask(ws, {"type": "reset", "data": {"seed": 1}})
        refused = await ask(ws, {"type": "step", "data": {"label": "illegal"}})
        assert refused["data"]["code"] == "VALIDATION_ERROR"
        assert "refused by the rules" in refused["data"]["message"]
        crashed = await ask(ws, {"type": "step", "data": {"label": "crash"}})
        assert crashed["data"]["code"] == "EXECUTION_ERROR"
        assert "crashed on purpose" in crashed["data"]["message"]
        ok = await ask(ws, {"type": "step", "data": {"label": "fine"}})
        assert ok["data"]["observation"]["count"] == 1


async def test_step_after_done_and_before_reset_say_to_reset(probe: str) -> None:
    async with connect(ws_url(probe)) as ws:
        early = await ask(ws, {"type": "step", "data": {"label": "x"}})
        assert early["data"]["code"] == "SESSION_ERROR"
        assert "reset" in early["data"]["message"]
        await ask(ws, {"type": "reset", "data": {}})
        done = await ask(ws, {"type": "step", "data": {"label": "done"}})
        assert done["data"]["done"] is True
        late = await ask(ws, {"type": "step", "data": {"label": "x"}})
        assert late["data"]["code"] == "SESSION_ERROR"
        assert "reset" in late["data"]["message"]


async def test_request_id_is_echoed_on_answers_and_errors(grid: str) -> None:
    async with connect(ws_url(grid)) as ws:
        assert "request-id" in ws.response.headers["x-openenv-features"]
        reset = await ask(ws, {"type": "reset", "data": {}, "request_id": "a1"})
        assert reset["request_id"] == "a1"
        error = await ask(ws, {"type": "nope", "request_id": 7})
        assert (error["type"], error["request_id"]) == ("error", 7)
        state = await ask(ws, {"type": "state", "request_id": "s"})
        assert (state["type"], state["request_id"]) == ("state", "s")
        plain = await ask(ws, {"type": "state"})
        assert "request_id" not in plain


async def test_a_timed_out_call_never_answers_the_next_one(probe: str) -> None:
    async with GenericEnvClient(base_url=probe, message_timeout_s=2) as env:
        await env.reset()
        with pytest.raises(ClientError) as late:
            await env.step({"label": "late", "hold": "t1"})
        assert late.value.server_code == "TIMEOUT"
        async with connect(ws_url(probe)) as other:  # let the held step finish: a late answer
            await ask(other, {"type": "reset", "data": {}})
            await ask(other, {"type": "step", "data": {"label": "go", "release": "t1"}})
        result = await env.step({"label": "next"})
        assert result.observation["label"] == "next"
        assert result.observation["count"] == 2


async def test_pipelined_calls_on_one_session_run_one_at_a_time_in_order(probe: str) -> None:
    async with connect(ws_url(probe)) as ws:
        await ask(ws, {"type": "reset", "data": {}})
        for i, sleep_s in enumerate([0.3, 0.0, 0.1]):
            await ws.send(
                json.dumps({"type": "step", "data": {"label": f"s{i}", "sleep_s": sleep_s}})
            )
        replies = [json.loads(await asyncio.wait_for(ws.recv(), 20)) for _ in range(3)]
        seen = [
            (r["data"]["observation"]["label"], r["data"]["observation"]["count"]) for r in replies
        ]
        assert seen == [("s0", 1), ("s1", 2), ("s2", 3)]


async def test_a_slow_sync_step_blocks_neither_the_server_nor_other_sessions(probe: str) -> None:
    async with connect(ws_url(probe)) as slow, connect(ws_url(probe)) as other:
        await ask(slow, {"type": "reset", "data": {}})
        await slow.send(json.dumps({"type": "step", "data": {"label": "held", "hold": "g1"}}))
        held = asyncio.create_task(slow.recv())

        await ask(other, {"type": "reset", "data": {}})
        for i in range(3):
            reply = await ask(other, {"type": "step", "data": {"label": f"o{i}"}})
            assert reply["data"]["observation"]["label"] == f"o{i}"
        async with httpx.AsyncClient() as http:
            assert (await http.get(probe + "/health", timeout=20)).json() == {"status": "healthy"}
        assert not held.done()

        await ask(other, {"type": "step", "data": {"label": "free", "release": "g1"}})
        answer = json.loads(await asyncio.wait_for(held, 20))
        assert answer["data"]["observation"]["label"] == "held"
        assert answer["data"]["observation"]["released"] is True


async def test_seeded_resets_reproduce_the_episode_over_the_wire(probe: str) -> None:
    async def episode(seed: int) -> list[Any]:
        async with connect(ws_url(probe)) as ws:
            first = await ask(ws, {"type": "reset", "data": {"seed": seed}})
            step = await ask(ws, {"type": "step", "data": {"label": "a"}})
            return [first["data"]["observation"]["start"], step["data"]["observation"]]

    assert await episode(11) == await episode(11)
    assert (await episode(11))[0] != (await episode(12))[0]


async def test_reset_options_the_env_declares_are_accepted(probe: str) -> None:
    async with connect(ws_url(probe)) as ws:
        await ask(ws, {"type": "reset", "data": {"level": 3, "episode_id": "ep-1"}})
        state = await ask(ws, {"type": "state"})
        assert state["data"]["level"] == 3
        assert state["data"]["episode_id"] == "ep-1"
        refused = await ask(ws, {"type": "reset", "data": {"levle": 3}})
        assert refused["data"]["code"] == "VALIDATION_ERROR"
        assert "accepted options: seed, episode_id, level" in refused["data"]["message"]


async def test_close_message_ends_the_connection_normally(grid: str) -> None:
    async with connect(ws_url(grid)) as ws:
        await ask(ws, {"type": "reset", "data": {}})
        await ws.send(json.dumps({"type": "close"}))
        await asyncio.wait_for(ws.wait_closed(), 20)
        assert ws.close_code == 1000


async def test_typed_client_walks_the_grid_to_the_goal(grid: str) -> None:
    async with GridWorldEnv(base_url=grid) as env:
        result = await env.reset()
        for move in ["DOWN"] * 4 + ["RIGHT"] * 4:
            result = await env.step(GridWorldAction(action=move))
        assert (result.reward, result.done) == (1.0, True)
        assert (result.observation.x, result.observation.y) == (4, 4)
        assert (await env.state()).step_count == 8


def test_middleware_a_user_adds_sees_the_websocket_too() -> None:
    """/ws skips the ASGI stack only while the app has no middleware of its user's."""
    from fastapi.testclient import TestClient
    from grid_world_env.server.environment import GridWorldEnvironment

    from openenv.server import create_app

    seen: list[str] = []

    class Log:
        def __init__(self, app):
            self.app = app

        async def __call__(self, scope, receive, send):
            seen.append(f"{scope['type']} {scope.get('path')}")
            await self.app(scope, receive, send)

    app = create_app(GridWorldEnvironment, enable_web=False)
    app.add_middleware(Log)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "reset", "data": {"seed": 0}})
        assert ws.receive_json()["type"] == "observation"
    assert "websocket /ws" in seen
