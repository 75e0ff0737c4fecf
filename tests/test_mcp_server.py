"""/mcp over the wire: JSON-RPC on HTTP and on /ws, shared sessions, production mode."""

from __future__ import annotations

import json

import httpx
import pytest
from websockets.sync.client import connect


def rpc(url: str, method: str, params: dict | None = None, rid: int = 1) -> dict:
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}
    response = httpx.post(url + "/mcp", json=body, timeout=30)
    assert response.status_code == 200
    return response.json()


def ws_send(ws, message: dict) -> dict:
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=30))


def test_tools_list_describes_each_tool_with_an_input_schema(echo_server: str) -> None:
    answer = rpc(echo_server, "tools/list", rid=7)
    assert answer["jsonrpc"] == "2.0" and answer["id"] == 7
    tools = {t["name"]: t for t in answer["result"]["tools"]}
    assert set(tools) == {"echo_message", "echo_with_length"}
    assert tools["echo_message"]["description"] == "Echo the provided message."
    schema = tools["echo_message"]["inputSchema"]
    assert schema["required"] == ["message"]
    assert schema["properties"]["message"]["type"] == "string"


def test_tools_call_returns_the_tool_result(echo_server: str) -> None:
    params = {"name": "echo_with_length", "arguments": {"message": "hey"}}
    result = rpc(echo_server, "tools/call", params)["result"]
    assert result["data"] == {"message": "hey", "length": 3}
    assert result["is_error"] is False
    assert result["content"][0]["type"] == "text"


def test_initialize_opens_a_standard_mcp_session(echo_server: str) -> None:
    params = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "curl", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    response = httpx.post(echo_server + "/mcp", json=body, timeout=30)
    assert response.headers["mcp-session-id"]
    result = response.json()["result"]
    assert result["serverInfo"]["name"] == "echo"
    assert "tools" in result["capabilities"]


@pytest.mark.parametrize("reserved", ["reset", "step", "state", "close"])
def test_reserved_names_are_refused_as_tools(echo_server: str, reserved: str) -> None:
    error = rpc(echo_server, "tools/call", {"name": reserved})["error"]
    assert error["code"] == -32602
    assert "reserved for the orchestrator" in error["message"]


@pytest.mark.parametrize(
    ("body", "code", "fragment"),
    [
        (b"{not json", -32700, "Parse error"),
        (b'{"id": 1, "method": "tools/list"}', -32600, "jsonrpc"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "resources/list"}', -32601, "resources/list"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}', -32602, "name"),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call",'
            b' "params": {"name": "echo_message", "arguments": {"text": "x"}}}',
            -32602,
            "message",
        ),
    ],
)
def test_bad_requests_get_json_rpc_errors(echo_server: str, body: bytes, code: int, fragment: str):
    response = httpx.post(echo_server + "/mcp", content=body, timeout=30)
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == code and fragment in error["message"]


def test_mcp_messages_on_ws_use_the_connection_s_session(echo_server: str) -> None:
    with connect(echo_server.replace("http", "ws") + "/ws") as ws:
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}
        call["params"] = {"name": "echo_message", "arguments": {"message": "over ws"}}
        reply = ws_send(ws, {"type": "mcp", "data": call})
        assert reply["type"] == "mcp"
        assert reply["data"]["id"] == 3 and reply["data"]["result"]["data"] == "over ws"
        assert ws_send(ws, {"type": "reset"})["type"] == "observation"
        state = ws_send(ws, {"type": "state"})["data"]
        assert state["step_count"] == 0  # a direct tool call is not a step


def test_a_session_created_over_http_is_shared_with_ws(echo_server: str) -> None:
    session_id = rpc(echo_server, "openenv/session/create")["result"]["session_id"]
    ws_url = echo_server.replace("http", "ws") + f"/ws?session_id={session_id}"
    with connect(ws_url) as ws:
        ws_send(ws, {"type": "reset", "data": {"episode_id": "shared-1"}})
        step = {"type": "call_tool", "tool_name": "echo_message", "arguments": {"message": "a"}}
        assert ws_send(ws, {"type": "step", "data": step})["data"]["reward"] == 0.0
    answer = rpc(
        echo_server,
        "tools/call",
        {"name": "echo_message", "arguments": {"message": "b"}, "session_id": session_id},
    )
    assert answer["result"]["data"] == "b"
    closed = rpc(echo_server, "openenv/session/close", {"session_id": session_id})["result"]
    assert closed == {"session_id": session_id, "closed": True}
    gone = rpc(echo_server, "tools/list", {"session_id": session_id})["error"]
    assert gone["code"] == -32602 and session_id in gone["message"]


def test_production_mode_serves_tools_and_health_only(echo_production_server: str) -> None:
    assert httpx.get(echo_production_server + "/health").json() == {"status": "healthy"}
    for method, path in [("POST", "/reset"), ("POST", "/step"), ("GET", "/state")]:
        response = httpx.request(method, echo_production_server + path, json={"action": {}})
        assert response.status_code == 404, path
    assert httpx.get(echo_production_server + "/web/").status_code == 404
    params = {"name": "echo_message", "arguments": {"message": "p"}}
    assert rpc(echo_production_server, "tools/call", params)["result"]["data"] == "p"


def test_production_mode_refuses_reset_step_and_state_on_ws(echo_production_server: str) -> None:
    with connect(echo_production_server.replace("http", "ws") + "/ws") as ws:
        for message in ({"type": "reset"}, {"type": "step", "data": {}}, {"type": "state"}):
            reply = ws_send(ws, message)
            assert reply["type"] == "error", message
            assert "production mode" in reply["data"]["message"]
        listed = ws_send(
            ws, {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}
        )
        assert len(listed["data"]["result"]["tools"]) == 2
