"""OPENENV_API_TOKEN: simulation control needs the bearer token; the token is never revealed."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, free_port, stop_process_group, wait_healthy
from grid_world_env import GridWorldAction, GridWorldEnv
from websockets.asyncio.client import connect

from openenv.core import ClientError

TOKEN = "tok-3f9c1d-very-secret"
WRONG = "tok-wrong-guess-42"


class Server:
    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log = log


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    """A grid world server with a token, logging everything (debug + access log) to a file."""
    log = tmp_path_factory.mktemp("auth") / "server.log"
    port = free_port()
    env = {**os.environ, "OPENENV_API_TOKEN": TOKEN, "ENABLE_WEB_INTERFACE": "0"}
    cmd = [sys.executable, "-m", "uvicorn", "grid_world_env.server.app:app", "--host"]
    cmd += ["127.0.0.1", "--port", str(port), "--log-level", "debug"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        yield Server(f"http://127.0.0.1:{port}", log)
    finally:
        stop_process_group(proc)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


ROUTES = [("POST", "/reset", None), ("POST", "/step", {"action": {"action": "UP"}})]
ROUTES += [("GET", "/state", None)]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_simulation_routes_need_the_token(server: Server, method, path, body) -> None:
    for headers in ({}, bearer(WRONG), {"Authorization": TOKEN}):
        refused = httpx.request(method, server.url + path, json=body, headers=headers, timeout=20)
        assert refused.status_code == 401
        assert refused.json()["code"] == "UNAUTHORIZED"
        assert "Authorization: Bearer" in refused.json()["detail"]
    allowed = httpx.request(method, server.url + path, json=body, headers=bearer(TOKEN), timeout=20)
    assert allowed.status_code == 200, allowed.text


@pytest.mark.parametrize("path", ["/health", "/metadata", "/schema"])
def test_information_routes_are_open(server: Server, path: str) -> None:
    assert httpx.get(server.url + path, timeout=20).status_code == 200


async def test_ws_without_the_token_is_refused_and_closed(server: Server) -> None:
    url = server.url.replace("http://", "ws://") + "/ws"
    for headers in (None, bearer(WRONG)):
        async with connect(url, additional_headers=headers) as ws:
            refusal = json.loads(await asyncio.wait_for(ws.recv(), 20))
            assert refusal["data"]["code"] == "UNAUTHORIZED"
            await asyncio.wait_for(ws.wait_closed(), 20)
            assert ws.close_code == 1008


async def test_the_client_sends_the_token_from_its_argument(server: Server) -> None:
    async with GridWorldEnv(base_url=server.url, api_token=TOKEN) as env:
        await env.reset()
        result = await env.step(GridWorldAction(action="DOWN"))
        assert result.observation.x == 1


async def test_the_client_reads_the_token_from_the_environment(server: Server, monkeypatch) -> None:
    monkeypatch.setenv("OPENENV_API_TOKEN", TOKEN)
    async with GridWorldEnv(base_url=server.url) as env:
        assert (await env.reset()).observation.x == 0


async def test_a_client_with_a_wrong_token_gets_a_clear_error(server: Server) -> None:
    env = GridWorldEnv(base_url=server.url, api_token=WRONG)
    with pytest.raises(ClientError) as refused:
        async with env:
            await env.reset()
    assert refused.value.server_code == "UNAUTHORIZED"
    assert WRONG not in str(refused.value)


def test_tokens_never_appear_in_responses_or_logs(server: Server) -> None:
    replies = [
        httpx.post(server.url + "/reset", headers=bearer(TOKEN), timeout=20),
        httpx.post(server.url + "/reset", headers=bearer(WRONG), timeout=20),
        httpx.post(server.url + "/reset", json={"x": TOKEN}, headers=bearer(TOKEN), timeout=20),
        httpx.post(server.url + "/step", json={"action": {"action": WRONG}}, headers=bearer(WRONG)),
    ]
    for reply in replies:
        assert TOKEN not in reply.text
        assert TOKEN not in str(reply.headers)
    log = server.log.read_text(errors="replace")
    assert "POST /reset" in log  # the access log is on, and it records the calls
    assert TOKEN not in log
    assert WRONG not in log
