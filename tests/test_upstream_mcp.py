"""``/mcp`` on every server, as ``openenv`` 0.10 has it: an environment without tools answers
JSON-RPC error objects (never a 404) and makes no environment to say so; over ``/ws`` too."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from conftest import api_app, served
from websockets.sync.client import connect


@pytest.fixture(scope="module")
def grid_url() -> Iterator[str]:
    """The grid world (no tools), API only."""
    with served(api_app("grid_world_env.server.app:app")) as url:
        yield url


def post(url: str, body: object) -> dict:
    response = httpx.post(url + "/mcp", json=body, timeout=30)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["jsonrpc"] == "2.0"
    return answer


def test_an_empty_body_is_an_invalid_request(grid_url: str) -> None:
    error = post(grid_url, {})["error"]
    assert error["code"] == -32600
    assert error["message"].startswith("Invalid request")


@pytest.mark.parametrize("method", ["tools/list", "tools/call"])
def test_tools_on_an_env_without_tools_are_an_internal_error(grid_url: str, method: str) -> None:
    answer = post(grid_url, {"jsonrpc": "2.0", "id": 4, "method": method, "params": {}})
    assert answer["id"] == 4
    assert answer["error"]["code"] == -32603
    assert answer["error"]["message"] == "Environment does not support MCP"
    assert httpx.get(grid_url + "/health", timeout=10).json()["status"] == "healthy"


def test_other_methods_are_not_found(grid_url: str) -> None:
    answer = post(grid_url, {"jsonrpc": "2.0", "id": "a", "method": "initialize"})
    assert answer["error"] == {
        "code": -32601,
        "message": "Method not found: initialize",
        "data": None,
    }


def test_a_body_that_is_not_json_is_a_parse_error(grid_url: str) -> None:
    response = httpx.post(grid_url + "/mcp", content=b"{nope", timeout=30)
    assert response.json()["error"]["code"] == -32700


def test_only_post_is_served_without_tools(grid_url: str) -> None:
    assert httpx.get(grid_url + "/mcp", timeout=30).status_code == 405


def test_mcp_over_ws_answers_the_same_and_the_episode_goes_on(grid_url: str) -> None:
    with connect(grid_url.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
        assert json.loads(ws.recv())["type"] == "observation"
        ws.send(
            json.dumps({"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}})
        )
        reply = json.loads(ws.recv())
        assert reply["type"] == "mcp"
        assert reply["data"]["error"]["code"] == -32603
        ws.send(json.dumps({"type": "mcp", "data": {}}))
        assert json.loads(ws.recv())["data"]["error"]["code"] == -32600
        ws.send(json.dumps({"type": "step", "data": {"action": "DOWN"}}))
        assert json.loads(ws.recv())["data"]["observation"]["x"] == 1  # still the same episode
