"""Sessions have owners (issue 38, item 7): a session's id, as a watch list, a log or a
screenshot shows it, attaches nothing, calls no tool and closes nothing; the handle its creator
was given (or the operator's token) does. A watch link is read-only."""

from __future__ import annotations

import json

import httpx
import pytest
from grid_world_env.server.environment import GridWorldEnvironment
from websockets.sync.client import connect

from openenv.server import create_app
from tests.conftest import api_app
from tests.servers import served

TOKEN = "operator-secret-token"


def rpc(url: str, method: str, params: dict | None = None, **headers: str) -> dict:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    answer = httpx.post(url + "/mcp", json=body, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def ws_send(ws, message: dict) -> dict:
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=30))


def ws_url(url: str, session: str) -> str:
    return url.replace("http://", "ws://") + f"/ws?session_id={session}"


@pytest.fixture(scope="module")
def echo():
    app = api_app("echo_env.server.app:app")
    with served(app) as url:
        yield url, app.state.openenv.manager


def test_a_sessions_public_id_attaches_nothing_over_ws(echo):
    url, manager = echo
    with connect(url.replace("http://", "ws://") + "/ws") as owner:
        ws_send(owner, {"type": "reset", "data": {}})
        (session,) = manager.sessions()
        with connect(ws_url(url, session.public_id)) as intruder:
            refused = ws_send(intruder, {"type": "step", "data": {"message": "moved"}})
        assert refused["type"] == "error" and refused["data"]["code"] == "SESSION_ERROR"
        assert session.public_id in refused["data"]["message"]
        assert session.progress.steps == 0 and not session.closed


def test_mcp_calls_and_close_need_the_handle(echo):
    url, manager = echo
    handle = rpc(url, "openenv/session/create")["result"]["session_id"]
    public = handle.split(".")[0]
    assert public and public != handle
    call = {"name": "echo_message", "arguments": {"message": "hi"}}
    stolen = rpc(url, "tools/call", {**call, "session_id": public})
    assert "error" in stolen
    assert "error" in rpc(url, "openenv/session/close", {"session_id": public})
    assert rpc(url, "tools/call", {**call, "session_id": handle})["result"]["data"] == "hi"
    with connect(ws_url(url, handle)) as ws:  # the creator attaches its /ws with the handle
        assert ws_send(ws, {"type": "reset", "data": {}})["type"] == "observation"
    closed = rpc(url, "openenv/session/close", {"session_id": handle})["result"]
    assert closed["closed"] is True and manager.active == 0


def test_the_operator_attaches_by_public_id():
    app = create_app(GridWorldEnvironment, api_token=TOKEN, enable_web=False)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with (
        served(app) as url,
        connect(url.replace("http://", "ws://") + "/ws", additional_headers=auth) as ws,
    ):
        ws_send(ws, {"type": "reset", "data": {"seed": 1}})
        (session,) = app.state.openenv.manager.sessions()
        with connect(ws_url(url, session.public_id), additional_headers=auth) as operator:
            assert ws_send(operator, {"type": "state"})["type"] == "state"


def test_a_watch_link_watches_and_cannot_act(monkeypatch):
    monkeypatch.setenv("OPENENV_TRUSTED_PROXIES", "1")  # visitors named by X-Forwarded-For
    app = create_app(GridWorldEnvironment)
    manager = app.state.openenv.manager
    visitor = {"X-Forwarded-For": "203.0.113.9"}
    with served(app) as url, connect(url.replace("http://", "ws://") + "/ws") as owner:
        ws_send(owner, {"type": "reset", "data": {"seed": 1}})
        (session,) = manager.sessions()
        (listed,) = httpx.get(url + "/web/watch/sessions").json()  # the operator's list (loopback)
        assert listed["id"] == session.public_id and listed["watch"] == session.watch_ref
        with httpx.Client(base_url=url, headers=visitor) as http:
            assert http.get("/web/watch/sessions").status_code == 403
            assert http.get(f"/web/watch/{session.public_id}/view").status_code == 403
            forged = f"{session.public_id}.{'A' * 24}"
            assert http.get(f"/web/watch/{forged}/view").status_code == 404
            shown = http.get(f"/web/watch/{session.watch_ref}/view")
            assert shown.status_code == 200 and shown.json()["episode"] == 1
        with connect(ws_url(url, session.watch_ref), additional_headers=visitor) as intruder:
            refused = ws_send(intruder, {"type": "step", "data": {"action": "DOWN"}})
        assert refused["type"] == "error" and session.progress.steps == 0
