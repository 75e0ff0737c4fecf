"""Everything a visitor starts has a budget (issue 38, items 4 and 6): playground tabs per
client and in all (also on a server with a token, where a locked tab has no session to count),
page loads per minute, a shared link's replay in time (and stopped when its requester goes
away), exports per client."""

from __future__ import annotations

import asyncio
import re
import time

import httpx
import pytest
from fastapi.testclient import TestClient
from grid_world_env.server.environment import GridWorldEnvironment

from openenv.server import create_app
from openenv.server.clients import RateLimit
from openenv.server.sessions import SessionManager
from openenv.web.episode.share import episode_token
from openenv.web.page import budget
from tests.servers import served

VISITOR = "203.0.113.9"
STEP_S = 0.05  # what one step of the slow env below costs


class SlowGrid(GridWorldEnvironment):
    """GridWorld whose every step takes STEP_S, as a dear step (a sandbox's) does."""

    def step(self, action):
        time.sleep(STEP_S)
        return super().step(action)


def looping_link(steps: int) -> str:
    """A link whose episode never ends: the agent walks into the corner's walls."""
    moves = [{"action": "UP"}, {"action": "LEFT"}] * (steps // 2)
    return episode_token({"seed": 0}, moves)


def test_page_loads_on_a_token_server_make_a_bounded_number_of_tabs():
    controller = create_app(GridWorldEnvironment, api_token="t0ken").state.openenv.web["controller"]
    made = [controller.new_tab(f"page-{n}", owner=VISITOR) for n in range(500)]
    assert len(controller.tabs) <= budget.PAGE_LOAD_BURST  # 500 loads at once: a burst's worth
    refused = made[-1]
    assert controller.tabs.by_key(refused.key) is None and not refused.authorized
    assert refused.notice.text == budget.TOO_FAST
    assert controller.new_tab("mine", owner=None).authorized is False  # loopback: not limited
    assert len(controller.tabs) == budget.PAGE_LOAD_BURST + 1


def test_tabs_are_bounded_per_client_and_in_all(monkeypatch):
    monkeypatch.setenv(budget.PAGE_LOADS_VAR, "0")  # no rate limit: the counts alone
    monkeypatch.setenv(budget.TABS_PER_CLIENT_VAR, "3")
    monkeypatch.setenv(budget.MAX_TABS_VAR, "5")
    controller = create_app(GridWorldEnvironment, api_token="t0ken").state.openenv.web["controller"]
    for n in range(10):
        controller.new_tab(f"a-{n}", owner=VISITOR)
    assert len(controller.tabs) == 3
    assert controller.new_tab("a-more", owner=VISITOR).notice.text.startswith("You have 3")
    for n in range(10):
        controller.new_tab(f"b-{n}", owner=f"198.51.100.{n}")
    assert len(controller.tabs) == 5
    assert controller.new_tab("c", owner=None).notice.text.startswith("This server is full")


def test_the_fast_shell_is_rate_limited_per_address(monkeypatch):
    monkeypatch.setenv("OPENENV_TRUSTED_PROXIES", "1")
    monkeypatch.setenv("MAX_SESSIONS_PER_CLIENT", "0")  # the page-load limit alone
    with TestClient(create_app(GridWorldEnvironment)) as client:
        visitor = {"X-Forwarded-For": VISITOR}
        answers = [
            client.post("/web/stage/open", json={}, headers=visitor).json() for _ in range(15)
        ]
        opened = [a for a in answers if a["ok"]]
        assert len(opened) == budget.PAGE_LOAD_BURST
        assert answers[-1]["error"] == budget.TOO_FAST
        other = client.post("/web/stage/open", json={}, headers={"X-Forwarded-For": "192.0.2.1"})
        assert other.json()["ok"] is True  # another visitor is not held back
        for a in opened:
            client.post("/web/stage/close", json={"tab": a["tab"]}, headers=visitor)


def test_a_replay_stops_at_its_time_budget_and_frees_its_session(monkeypatch):
    monkeypatch.setenv(budget.REPLAY_BUDGET_VAR, "0.5")
    app = create_app(SlowGrid)
    controller = app.state.openenv.web["controller"]

    async def replay() -> tuple[bool, float, object]:
        tab = controller.new_tab("page", owner=None)
        started = time.monotonic()
        ok = await controller.replay_link(tab, looping_link(400))  # 20 s of steps
        return ok, time.monotonic() - started, tab

    ok, took, tab = asyncio.run(replay())
    assert ok is False and took < 5
    assert "at most 0.5 s" in tab.notice.text
    assert 0 < len(tab.episode.steps) < 400
    assert tab.session is None and app.state.openenv.manager.active == 0


def test_a_replay_stops_when_its_requester_disconnects():
    app = create_app(SlowGrid)
    manager = app.state.openenv.manager
    with served(app) as url, httpx.Client(base_url=url) as http:
        tab = http.post("/web/stage/open", json={}).json()["tab"]
        with pytest.raises(httpx.ReadTimeout):  # the visitor leaves after half a second
            http.post(
                "/web/stage/replay", json={"tab": tab, "episode": looping_link(400)}, timeout=0.5
            )
        (session,) = manager.sessions()
        deadline = time.monotonic() + 5
        while not session.closed and time.monotonic() < deadline:
            time.sleep(0.05)  # waiting on the condition: the server closes the session
        assert session.closed, f"the replay ran on: {session.progress.steps} steps"
        assert session.progress.steps < 100


def test_exports_are_rate_limited_per_client(monkeypatch):
    monkeypatch.setenv("OPENENV_TRUSTED_PROXIES", "1")
    with TestClient(create_app(GridWorldEnvironment)) as client:
        visitor = {"X-Forwarded-For": VISITOR}
        key = client.post("/web/stage/open", json={}, headers=visitor).json()["tab"]
        html = client.post("/web/stage/act", json={"tab": key, "index": 1}, headers=visitor)
        export = html.json()["html"].split('href="export/')[1].split("/")[0]
        route = f"/web/export/{export}/episode.jsonl"
        codes = [client.get(route, headers=visitor).status_code for _ in range(15)]
        assert codes.count(200) == 10 and codes[-1] == 429
        refused = client.get(route, headers=visitor)
        assert int(refused.headers["retry-after"]) >= 1
        assert client.get(route, headers={"X-Forwarded-For": "192.0.2.1"}).status_code == 200


def test_a_rate_limit_refills_and_forgets_old_clients():
    limit = RateLimit(per_minute=60, burst=2, max_clients=3)
    assert [limit.allow("a", now=0.0) for _ in range(3)] == [True, True, False]
    assert limit.allow("a", now=1.0) is True  # one a second
    for n in range(5):
        limit.allow(f"c{n}", now=2.0)
    assert len(limit._buckets) == 3
    assert limit.allow(None) is True


def test_a_full_server_tells_a_new_visitor_when_to_come_back_and_where_else_to_play(monkeypatch):
    monkeypatch.setenv("MAX_CONCURRENT_ENVS", "1")
    monkeypatch.setenv("SESSION_TIMEOUT_S", "300")
    monkeypatch.setenv("SPACE_ID", "someone/grid-demo")
    monkeypatch.setenv("OPENENV_TRUSTED_PROXIES", "1")
    with TestClient(create_app(GridWorldEnvironment)) as client:
        first = client.post("/web/stage/open", json={}, headers={"X-Forwarded-For": VISITOR})
        assert first.json()["ok"] is True
        late = client.post("/web/stage/open", json={}, headers={"X-Forwarded-For": "192.0.2.1"})
        answer = late.json()
        assert late.status_code == 200 and answer["ok"] is False
        text = answer["error"]
        assert text.startswith("This server is full: its one session is in use")
        assert re.search(r"idle session is closed \(the next one in [1-5] min, unless", text)
        assert "pip install openenv-playground && openenv serve grid_world" in text
        link = "https://huggingface.co/spaces/someone/grid-demo?duplicate=true"
        assert f'<a href="{link}" target="_blank"' in answer["html"]
        assert "This server is full right now" in answer["html"]  # in place of the board
        # The visitor already playing plays on.
        tab = first.json()["tab"]
        step = client.post(
            "/web/stage/act", json={"tab": tab, "index": 1}, headers={"X-Forwarded-For": VISITOR}
        )
        assert step.json()["ok"] is True


def test_a_full_tab_budget_says_so_with_the_way_out_and_no_link_off_a_space(monkeypatch):
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.setenv(budget.PAGE_LOADS_VAR, "0")
    monkeypatch.setenv(budget.MAX_TABS_VAR, "2")
    controller = create_app(GridWorldEnvironment, api_token="t0ken").state.openenv.web["controller"]
    for n in range(2):
        controller.new_tab(f"a-{n}", owner=f"198.51.100.{n}")
    refused = controller.new_tab("late", owner=VISITOR)
    assert refused.notice.kind == "full" and not refused.authorized
    assert refused.notice.text.startswith("This server is full: it has as many playground tabs")
    assert "try again in a few minutes" in refused.notice.text
    assert refused.notice.text.endswith("then open http://localhost:8000/web/.")
    assert "huggingface.co" not in controller.html(refused)


def test_a_space_id_that_is_no_repo_name_makes_no_link(monkeypatch):
    monkeypatch.setenv("SPACE_ID", 'x/y" onmouseover="alert(1)')
    assert budget.duplicate_url() is None
    monkeypatch.setenv("SPACE_ID", "someone/grid-demo")
    assert (
        budget.duplicate_url() == "https://huggingface.co/spaces/someone/grid-demo?duplicate=true"
    )


def test_the_way_out_names_the_command_that_serves_the_env():
    bundled = create_app(GridWorldEnvironment).state.openenv
    command = "pip install openenv-playground && openenv serve grid_world"
    assert budget.run_locally(bundled) == command
    elsewhere = create_app(SlowGrid).state.openenv  # defined here: no package of ours
    assert "openenv serve a copy of this environment's source" in budget.run_locally(elsewhere)


def test_a_full_servers_expected_wait_is_the_next_idle_session_closed():
    async def waits() -> list[float | None]:
        manager = SessionManager(GridWorldEnvironment, max_sessions=2, idle_timeout_s=300)
        first = await manager.open("web")
        first.used = True
        first.last_active -= 100  # idle for 100 s: closed in 200 s if nobody plays
        agent = await manager.open("ws")
        agent.used, agent.connections = True, 1  # an agent on a live socket is never reaped
        found = [manager.next_idle_close_s()]
        first.connections = 1
        found.append(manager.next_idle_close_s())
        await manager.shutdown()
        return found

    soonest, none_left = asyncio.run(waits())
    assert soonest is not None and 190 < soonest <= 200
    assert none_left is None
