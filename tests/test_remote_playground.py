"""The playground in front of a remote server, without a browser: our servers over the network
path (their own views, buttons and reset options), a remote that is down at start, goes down
mid-episode, is slow, or needs a token. Real servers on loopback, real WebSockets."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from snake_env.server.environment import SnakeEnvironment

from openenv.core import Environment
from openenv.core.errors import InvalidAction
from openenv.core.types import Action, Observation, State
from openenv.server import create_app
from openenv.web.remote.app import RemotePlayground, remote_slug, remotes_from
from openenv.web.remote.probe import Remote
from tests.servers import api_app, free_port, served


def stage(http: httpx.Client, route: str, **body: Any) -> dict[str, Any]:
    return stage_at(http, "/web", route, **body)


@contextlib.contextmanager
def proxy(remote: Remote, **options: Any) -> Iterator[tuple[RemotePlayground, httpx.Client]]:
    playground = RemotePlayground(remote, **options)
    with served(playground) as url, httpx.Client(base_url=url, timeout=60) as http:
        yield playground, http


@pytest.fixture(scope="module")
def snake() -> Iterator[tuple[str, Any]]:
    app = api_app("snake_env.server.app:app")
    with served(app) as url:
        yield url, app.state.openenv.manager


@pytest.fixture(scope="module")
def snake_proxy(snake) -> Iterator[tuple[RemotePlayground, httpx.Client]]:
    with proxy(Remote.of(snake[0], name="snake")) as both:
        yield both


def test_our_server_is_drawn_with_its_own_views_buttons_and_reset_options(snake_proxy):
    playground, http = snake_proxy
    assert playground.description is not None and playground.description.ours
    page = http.get("/web/").text
    assert '"oe-opt-width"' in page and '"oe-opt-illegal_move"' in page  # its reset form
    opened = stage(http, "open")
    assert opened["ok"], opened
    html = opened["html"]
    assert 'class="oe-board"' in html  # the snake's own Board view, not the observation as text
    local = SnakeEnvironment()
    local.reset(seed=0)
    labels = [c.label for c in local.legal_actions()]
    for label in labels:
        assert f">{label}<" in html
    moved = stage(http, "act", tab=opened["tab"], index=0)
    assert moved["ok"] and 'data-steps="1"' in moved["html"]


def test_each_tab_has_its_own_session_on_the_remote(snake, snake_proxy):
    _, manager = snake
    _, http = snake_proxy
    before = manager.active
    one, two = stage(http, "open"), stage(http, "open")
    assert manager.active == before + 2
    stage(http, "act", tab=one["tab"], index=0)
    stage(http, "act", tab=one["tab"], index=0)
    again = stage(http, "redraw", tab=two["tab"])
    assert 'data-steps="0"' in again["html"]  # the first tab's steps are not the second's
    http.post("/web/stage/close", content=f'{{"tab": "{one["tab"]}"}}')
    deadline = time.monotonic() + 30
    while manager.active != before + 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert manager.active == before + 1  # closing the tab closed its remote session


def test_reset_options_reach_the_remote_and_its_refusals_come_back(snake_proxy):
    playground, _ = snake_proxy
    ctx = playground.app.state.openenv
    env = ctx.env_factory()  # what one tab holds: its own session on the remote

    async def play() -> None:
        obs = await env.reset_async(seed=3, width=5, height=6)
        board = env.render()
        assert board is not None and board.shape == (6, 5)
        assert obs.done is False and env.legal_actions()
        with pytest.raises(InvalidAction, match="width"):
            await env.reset_async(width=99)  # the remote's own bounds, said by the remote
        await env.step_async(ctx.action_cls(**env.legal_actions()[0].action))
        await env.close_async()

    asyncio.run(play())


def test_a_remote_that_is_down_at_start_is_said_and_retried():
    port = free_port()
    now = [0.0]
    remote = Remote.of(f"http://127.0.0.1:{port}")
    with proxy(remote, retry_s=5.0, clock=lambda: now[0]) as (playground, http):
        page = http.get("/web/")
        assert page.status_code == 503 and "cannot reach" in page.text
        assert f"127.0.0.1:{port}" in page.text and "tries again" in page.text
        with _serve_on(create_app(SnakeEnvironment, enable_web=False), port):
            assert http.get("/web/").status_code == 503  # not asked again before retry_s
            now[0] += 5.0
            assert http.get("/web/").status_code == 200
            assert playground.description is not None and playground.description.ours


def test_a_remote_going_down_mid_episode_is_reported_and_the_page_keeps_working():
    port = free_port()
    with (
        _serve_on(create_app(SnakeEnvironment, enable_web=False), port) as url,
        proxy(Remote.of(url)) as (_, http),
    ):
        tab = stage(http, "open")["tab"]
        assert stage(http, "act", tab=tab, index=0)["ok"]
        _STOP[url]()  # the remote goes away under an open tab
        lost = stage(http, "act", tab=tab, index=0)
        assert not lost["ok"]
        assert "remote server" in lost["error"] and "reset" in lost["error"]
        assert http.get("/web/").status_code == 200  # the page still answers
        again = stage(http, "reset", tab=tab)
        assert not again["ok"] and "cannot be reached" in again["error"]


class Wait(Action):
    n: int = 0


class Slow(Environment[Wait, Observation, State]):
    """Answers reset at once and every step after ``delay`` seconds."""

    delay = 3.0

    def reset(self, seed=None, episode_id=None):
        return Observation()

    async def step_async(self, action):
        await asyncio.sleep(self.delay)
        return Observation()

    @property
    def state(self):
        return State()


def test_a_slow_remote_is_cut_off_at_its_timeout(monkeypatch):
    monkeypatch.setenv("OPENENV_REMOTE_TIMEOUT_S", "0.5")
    with served(create_app(Slow, enable_web=False)) as url, proxy(Remote.of(url)) as (_, http):
        opened = stage(http, "open")
        slow = stage(http, "act", tab=opened["tab"], fields={"n": "1"})
        assert not slow["ok"] and "did not answer the step within 0.5s" in slow["error"]
        assert stage(http, "reset", tab=opened["tab"])["ok"]  # and the tab goes on


def test_a_remote_that_needs_a_token_gets_it_from_the_environment(monkeypatch):
    app = create_app(SnakeEnvironment, enable_web=False, api_token="s3cret-remote")
    with served(app) as url:
        monkeypatch.delenv("OPENENV_REMOTE_TOKEN", raising=False)
        with proxy(Remote.of(url)) as (_, http):
            refused = stage(http, "open")  # its /schema is public, its sessions are not
            assert not refused["ok"] and "$OPENENV_REMOTE_TOKEN" in refused["error"]
        monkeypatch.setenv("OPENENV_REMOTE_TOKEN", "s3cret-remote")
        with proxy(Remote.of(url)) as (_, http):
            page = http.get("/web/")
            assert page.status_code == 200 and "s3cret-remote" not in page.text
            opened = stage(http, "open")
            assert opened["ok"] and "s3cret-remote" not in opened["html"]


def test_the_catalog_list_of_remotes_reads_a_file_or_a_list(tmp_path, monkeypatch):
    listing = tmp_path / "remotes.txt"
    listing.write_text(
        "# remote servers\n"
        "pong=https://example.org/pong  token_env=PONG_TOKEN\n"
        "openenv/grid_world\n"
        "http://127.0.0.1:9000  # a local one\n"
    )
    monkeypatch.setenv("PONG_TOKEN", "tok")
    pong, grid, local = remotes_from(str(listing))
    assert (pong.name, pong.url, pong.token) == ("pong", "https://example.org/pong", "tok")
    assert grid.url == "https://openenv-grid-world.hf.space"
    assert remote_slug(local) == "127_0_0_1_9000"
    monkeypatch.setenv("OPENENV_REMOTES", "a=http://h1:1, b=http://h2:2")
    assert [r.name for r in remotes_from()] == ["a", "b"]
    with pytest.raises(ValueError, match="named"):
        remotes_from("http://h:1,http://h:1")


_STOP: dict[str, Any] = {}


@contextlib.contextmanager
def _serve_on(app: Any, port: int) -> Iterator[str]:
    """Serve ``app`` on ``port`` (a server that comes back where it was)."""
    import threading

    import uvicorn

    from openenv.cli.serve import uvicorn_options

    server = uvicorn.Server(
        uvicorn.Config(app, **uvicorn_options(host="127.0.0.1", port=port, log_level="warning"))
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=30)

    _STOP[url] = stop
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield url
    finally:
        stop()


def test_the_catalog_lists_remote_servers_marked_remote_and_asks_their_health_apart(snake):
    from openenv.core.registry import discover
    from openenv.web.catalog.app import create_catalog_app
    from tests.servers import ROOT

    grid = [e for e in discover(ROOT / "envs") if e.name == "grid_world"]
    gone = f"http://127.0.0.1:{free_port()}"
    remotes = [Remote.of(snake[0], name="snake"), Remote.of(gone, name="gone")]
    app = create_catalog_app(grid, remotes=remotes)
    with served(app) as url, httpx.Client(base_url=url, timeout=60) as http:
        page = http.get("/").text
        assert page.count('data-remote="1"') == 2 and "checking…" in page
        assert 'href="remote/snake/web/"' in page and f'data-base="{snake[0]}"' in page
        assert http.get("/api/remotes/snake/health").json()["status"] == "up"
        down = http.get("/api/remotes/gone/health").json()
        assert down["status"] == "down" and down["detail"]
        assert http.get("/remote/snake/web/").status_code == 200
        assert http.get("/remote/gone/web/").status_code == 503
        opened = stage_at(http, "/remote/snake/web", "open")
        assert opened["ok"] and 'class="oe-board"' in opened["html"]
        assert http.get("/envs/grid_world/web/").status_code == 200  # local envs as before
        cards = {c["name"]: c for c in http.get("/api/envs").json()}
        assert cards["snake"]["remote"] == snake[0] and cards["grid_world"]["remote"] is None


def stage_at(http: httpx.Client, path: str, route: str, **body: Any) -> dict[str, Any]:
    answer = http.post(f"{path}/stage/{route}", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_command_refuses_a_target_that_is_neither_a_url_nor_a_space(capsys):
    from openenv.cli.main import main

    assert main(["playground", "not a space"]) == 1
    said = capsys.readouterr()
    assert "not a Space id" in said.out + said.err and "http(s)://" in said.out + said.err
