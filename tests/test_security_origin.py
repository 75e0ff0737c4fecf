"""A page in the operator's browser cannot drive the server (issue 38, items 3 and 8).

Each attack is sent the way a browser sends it: a foreign ``Origin`` on a WebSocket or a
``text/plain`` POST (a "simple" request, no preflight), a DNS-rebinding page whose requests
carry the attacker's name in ``Host``, a forged ``Host`` echoed into a redirect. The server's
own pages, and programs (no ``Origin``, any ``Host``), keep working.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from fastapi.testclient import TestClient
from grid_world_env.server.environment import GridWorldEnvironment
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from openenv.server import create_app
from openenv.server.origin import Gate
from tests.servers import served

EVIL = "https://evil.example"
BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0"}
JSON_RPC = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


@pytest.fixture(scope="module")
def grid():
    app = create_app(GridWorldEnvironment)
    with served(app) as url:
        yield url, app.state.openenv.manager


def ws_url(url: str) -> str:
    return url.replace("http://", "ws://") + "/ws"


async def ws_reset(url: str, **options) -> dict:
    async with connect(ws_url(url), **options) as ws:
        await ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
        return json.loads(await ws.recv())


def test_a_foreign_origin_cannot_open_a_websocket(grid):
    url, manager = grid
    with pytest.raises(InvalidStatus) as refused:
        asyncio.run(ws_reset(url, origin=EVIL))
    assert refused.value.response.status_code == 403
    assert manager.active == 0  # no session was made for it


def test_the_servers_own_page_and_programs_open_websockets(grid):
    url, _ = grid
    assert asyncio.run(ws_reset(url, origin=url))["type"] == "observation"
    assert asyncio.run(ws_reset(url))["type"] == "observation"  # a program: no Origin


@pytest.mark.parametrize("route", ["/reset", "/step", "/web/stage/open"])
def test_a_cross_site_simple_post_runs_nothing(grid, route):
    url, manager = grid
    headers = {**BROWSER, "Origin": EVIL, "Content-Type": "text/plain"}
    answer = httpx.post(url + route, content=b'{"action": {"action": "DOWN"}}', headers=headers)
    assert answer.status_code == 403 and answer.json()["code"] == "FORBIDDEN_ORIGIN"
    assert "OPENENV_ALLOWED_ORIGINS" in answer.json()["detail"]
    assert manager.active == 0


def test_a_cross_site_post_without_origin_is_refused_by_its_fetch_metadata(grid):
    url, _ = grid
    headers = {**BROWSER, "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}
    assert httpx.post(url + "/reset", content=b"{}", headers=headers).status_code == 403
    legacy = {**BROWSER, "Content-Type": "application/x-www-form-urlencoded"}  # no metadata at all
    assert httpx.post(url + "/reset", content=b"a=1", headers=legacy).status_code == 403


def test_a_dns_rebinding_page_gets_nothing(grid):
    url, _ = grid
    port = url.rsplit(":", 1)[1]
    rebound = {
        **BROWSER,
        "Host": f"rebind.attacker.example:{port}",
        "Sec-Fetch-Site": "same-origin",
    }
    with httpx.Client(base_url=url, headers=rebound) as page:
        for answer in (page.get("/web/watch/sessions"), page.get("/health")):
            assert answer.status_code == 403
            assert "OPENENV_ALLOWED_HOSTS" in answer.json()["detail"]
        assert page.post("/reset", json={}).status_code == 403


def test_a_dns_rebinding_page_cannot_open_a_websocket(grid):
    url, manager = grid
    port = int(url.rsplit(":", 1)[1])
    page = f"rebind.attacker.example:{port}"  # the attacker's name, resolved to loopback

    async def rebound() -> None:
        options = {"host": "127.0.0.1", "port": port, "origin": f"http://{page}"}
        async with connect(f"ws://{page}/ws", user_agent_header=BROWSER["User-Agent"], **options):
            pass

    with pytest.raises(InvalidStatus) as refused:
        asyncio.run(rebound())
    assert refused.value.response.status_code == 403 and manager.active == 0


def test_programs_reach_the_server_under_any_name(grid):
    url, _ = grid
    answer = httpx.post(url + "/reset", json={"seed": 2}, headers={"Host": "env-svc:8000"})
    assert answer.status_code == 200 and "observation" in answer.json()


def test_the_servers_own_pages_still_post(grid):
    url, _ = grid
    headers = {**BROWSER, "Origin": url, "Sec-Fetch-Site": "same-origin"}
    assert httpx.post(url + "/reset", json={}, headers=headers).status_code == 200


def test_a_cross_site_post_to_mcp_is_refused(echo_server):
    headers = {**BROWSER, "Origin": EVIL, "Content-Type": "text/plain"}
    answer = httpx.post(echo_server + "/mcp", content=json.dumps(JSON_RPC), headers=headers)
    assert answer.status_code == 403
    same = httpx.post(echo_server + "/mcp", json=JSON_RPC, headers={"Origin": echo_server})
    assert same.status_code == 200 and same.json()["result"]["tools"]


def test_a_forged_host_is_never_echoed_into_a_redirect():
    client = TestClient(create_app(GridWorldEnvironment))
    answer = client.get("/web", headers={"Host": "evil.example"}, follow_redirects=False)
    assert answer.status_code in (301, 302, 307, 308)
    location = answer.headers["location"]
    assert location.startswith("/") and "evil.example" not in location


def test_a_catalog_redirect_is_relative(tmp_path):
    from openenv.web.catalog.app import create_catalog_app
    from tests.servers import ROOT

    app = create_catalog_app(ROOT / "envs")
    client = TestClient(app)
    name = next(item.entry.name for item in app.state.catalog if item.available)
    answer = client.get(
        f"/envs/{name}/web", headers={"Host": "evil.example"}, follow_redirects=False
    )
    assert answer.status_code in (301, 302, 307, 308)
    assert answer.headers["location"].startswith("/")


# -- the rules themselves ------------------------------------------------------------------------


def _scope(headers: dict[str, str], method: str = "GET") -> dict:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return {"type": "http", "method": method, "headers": raw}


def test_configured_names_a_space_and_a_trusted_proxy_are_admitted(monkeypatch):
    monkeypatch.setenv("OPENENV_ALLOWED_HOSTS", "play.example.org, .lab.example")
    monkeypatch.setenv("SPACE_HOST", "someone-grid.hf.space")
    gate = Gate.from_env(proxies=1)
    for host in ("play.example.org", "gpu3.lab.example:8000", "someone-grid.hf.space", "[::1]:80"):
        assert gate.refusal(_scope({**BROWSER, "Host": host})) is None, host
    assert gate.refusal(_scope({**BROWSER, "Host": "evil.example"})) is not None
    # Behind the Space's proxy: the host it forwards is the one checked, and the page's origin
    # (https, the proxy ends TLS) is the server's own.
    behind = {
        **BROWSER,
        "Host": "10.0.0.7:7860",
        "X-Forwarded-Host": "someone-grid.hf.space",
        "Origin": "https://someone-grid.hf.space",
    }
    assert gate.refusal(_scope(behind, "POST")) is None
    assert gate.refusal(_scope({**behind, "Origin": EVIL}, "POST")) is not None


def test_configured_origins_and_null(monkeypatch):
    monkeypatch.setenv("OPENENV_ALLOWED_ORIGINS", "https://dash.example.org")
    gate = Gate.from_env()
    mine = {"Host": "localhost:8000"}
    assert gate.refusal(_scope({**mine, "Origin": "https://dash.example.org"}, "POST")) is None
    assert gate.refusal(_scope({**mine, "Origin": "null"}, "POST")) is not None
    assert gate.refusal(_scope({**mine, "Origin": "http://localhost:9999"}, "POST")) is not None
    # A link to a shared episode, followed from another site: a navigation, not refused.
    navigation = {**BROWSER, **mine, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
    assert gate.refusal(_scope(navigation)) is None
