"""Watching live sessions: the list shows a client's /ws session and a web tab with their
counters, one session's view follows its steps (drawn once for any number of watchers),
a protected server asks for its token, and an open server lets only loopback clients watch."""

from __future__ import annotations

import time

import httpx
import pytest
from fastapi.testclient import TestClient
from grid_world_env import GridWorldAction, GridWorldEnv
from grid_world_env.server.environment import GridWorldEnvironment

from openenv.server import create_app
from tests.servers import served

TOKEN = "watch-secret-token"


@pytest.fixture(scope="module")
def grid():
    with served(create_app(GridWorldEnvironment)) as url:
        yield url


def sessions(http: httpx.Client) -> list[dict]:
    answer = http.get("/web/watch/sessions")
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_clients_session_is_listed_and_followed_as_it_steps(grid):
    with GridWorldEnv(base_url=grid).sync() as env, httpx.Client(base_url=grid) as http:
        env.reset(seed=3)
        env.step(GridWorldAction(action="DOWN"))
        env.step(GridWorldAction(action="RIGHT"))
        (mine,) = [s for s in sessions(http) if s["kind"] == "ws"]
        assert (mine["episode"], mine["steps"], mine["done"]) == (1, 2, False)
        assert mine["last_reward"] == pytest.approx(-0.1) and mine["total"] == pytest.approx(-0.2)

        view = http.get(f"/web/watch/{mine['id']}/view").json()
        assert view["steps"] == 2 and 'class="oe-board"' in view["html"]
        assert "<svg" in view["chart"]
        assert http.get(f"/web/watch/{mine['id']}/view?seen={view['version']}").json() == {
            "version": view["version"]
        }  # nothing new: no drawing, no data
        env.step(GridWorldAction(action="DOWN"))
        later = newer_view(http, mine["id"], view["version"])
        assert later["steps"] == 3 and "<svg" in later["chart"]
        env.reset(seed=4)
        again = http.get(f"/web/watch/{mine['id']}/view").json()
        assert (again["episode"], again["steps"]) == (2, 0)
    with httpx.Client(base_url=grid) as http:
        assert http.get(f"/web/watch/{mine['id']}/view").status_code == 404  # it closed
        page = http.get("/web/watch")
        assert page.status_code == 200 and "Live sessions" in page.text


def test_web_tabs_are_listed_as_such(grid):
    with httpx.Client(base_url=grid) as http:
        tab = http.post("/web/stage/open", json={}).json()["tab"]
        http.post("/web/stage/act", json={"tab": tab, "index": 1})
        web = [s for s in sessions(http) if s["kind"] == "web"]
        assert web and web[0]["steps"] == 1
        http.post("/web/stage/close", content=f'{{"tab": "{tab}"}}')


def newer_view(http: httpx.Client, session_id: str, seen: int) -> dict:
    """The first view drawn after version ``seen`` (a view is redrawn at most every 250 ms)."""
    deadline = time.monotonic() + 30
    while True:
        view = http.get(f"/web/watch/{session_id}/view?seen={seen}").json()
        if view["version"] != seen:
            return view
        assert time.monotonic() < deadline, "the watched view was never redrawn"
        time.sleep(0.05)


def test_watchers_share_one_drawing_per_change():
    app = create_app(GridWorldEnvironment)
    watching = app.state.openenv.web["watching"]
    draws = []
    draw = watching._draw

    async def counted(session):
        draws.append(session.public_id)
        return await draw(session)

    watching._draw = counted
    with (
        served(app) as url,
        GridWorldEnv(base_url=url).sync() as env,
        httpx.Client(base_url=url) as http,
    ):
        env.reset(seed=1)
        env.step(GridWorldAction(action="DOWN"))
        (mine,) = sessions(http)
        answers = [http.get(f"/web/watch/{mine['id']}/view").json() for _ in range(4)]
    assert len({a["html"] for a in answers}) == 1 and draws == [mine["id"]]


def test_a_protected_server_asks_watchers_for_its_token():
    app = create_app(GridWorldEnvironment, api_token=TOKEN)
    with TestClient(app) as client:
        refused = client.get("/web/watch/sessions")
        assert refused.status_code == 401 and "API token" in refused.json()["detail"]
        wrong = client.get("/web/watch/sessions", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        ok = client.get("/web/watch/sessions", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200 and ok.json() == []


def test_an_open_server_lets_only_loopback_clients_watch():
    app = create_app(GridWorldEnvironment)
    with TestClient(app, client=("203.0.113.9", 50000)) as visitor:
        refused = visitor.get("/web/watch/sessions")
        assert refused.status_code == 403 and "OPENENV_API_TOKEN" in refused.json()["detail"]
        assert visitor.get("/web/watch/ws-x/view").status_code == 403
        assert visitor.get("/web/watch").status_code == 200  # the page holds no data
