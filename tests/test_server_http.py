"""The HTTP routes: shapes of /health, /metadata, /schema and one-shot /reset, /step, /state."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
from conftest import api_app, served
from websockets.asyncio.client import connect


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    with (
        served(api_app("grid_world_env.server.app:app", max_concurrent_envs=1)) as url,
        httpx.Client(base_url=url, timeout=20) as client,
    ):
        yield client


def test_health(http: httpx.Client) -> None:
    reply = http.get("/health")
    assert (reply.status_code, reply.json()) == (200, {"status": "healthy"})


def test_metadata_names_the_environment(http: httpx.Client) -> None:
    meta = http.get("/metadata").json()
    assert meta["name"] == "grid_world"  # from openenv.yaml
    assert {"description", "readme_content", "version", "author", "documentation_url"} <= set(meta)


def test_schema_describes_action_observation_and_state(http: httpx.Client) -> None:
    schema = http.get("/schema").json()
    assert set(schema) >= {"action", "observation", "state"}
    assert schema["action"]["properties"]["action"]
    assert {"x", "y", "done", "reward"} <= set(schema["observation"]["properties"])
    assert {"episode_id", "step_count"} <= set(schema["state"]["properties"])


def test_reset_returns_the_first_observation(http: httpx.Client) -> None:
    for body in (None, {}, {"seed": 3, "episode_id": "e1"}):
        reply = http.post("/reset", json=body)
        assert reply.status_code == 200, reply.text
        data = reply.json()
        assert set(data) == {"observation", "reward", "done", "metadata"}
        assert (data["observation"]["x"], data["observation"]["y"]) == (0, 0)
        assert data["done"] is False


def test_step_is_one_step_from_a_fresh_episode(http: httpx.Client) -> None:
    data = http.post("/step", json={"action": {"action": "DOWN"}}).json()
    assert data["observation"]["x"] == 1
    assert data["reward"] == pytest.approx(-0.1)
    assert isinstance(data["reward"], float)
    assert data["done"] is False


@pytest.mark.parametrize(
    "body",
    [
        {"action": {"action": "DIAGONAL"}},
        {"action": {"action": "UP", "speed": 3}},
        {"action": "UP"},
        {"move": "UP"},
    ],
)
def test_a_bad_step_is_422_with_the_reason(http: httpx.Client, body: dict) -> None:
    reply = http.post("/step", json=body)
    assert reply.status_code == 422
    assert reply.json()["code"] == "VALIDATION_ERROR"
    assert reply.json()["detail"]


def test_unknown_reset_options_are_refused(http: httpx.Client) -> None:
    reply = http.post("/reset", json={"difficulty": "hard"})
    assert reply.status_code == 422
    assert "'difficulty'" in reply.json()["detail"]
    assert "accepted options: seed, episode_id" in reply.json()["detail"]


def test_state_is_a_fresh_episode_state(http: httpx.Client) -> None:
    state = http.get("/state").json()
    assert state["step_count"] == 0
    assert {"episode_id", "x", "y"} <= set(state)


async def test_one_shot_calls_leave_no_session_behind(http: httpx.Client) -> None:
    for _ in range(5):
        assert http.post("/step", json={"action": {"action": "UP"}}).status_code == 200
        assert http.post("/step", json={"action": {"action": "JUMP"}}).status_code == 422
    url = str(http.base_url).rstrip("/").replace("http://", "ws://") + "/ws"
    async with connect(url) as ws:  # the server's only slot is free
        await ws.send(json.dumps({"type": "reset", "data": {}}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 20))["type"] == "observation"
