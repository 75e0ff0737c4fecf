"""The fast shell in a real browser: with Gradio's bundle held back, the page is already playable;
once the bundle arrives, the Gradio page carries on the same episode."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.conftest import ROOT, serve, wait_web_sessions, web_sessions

pytestmark = pytest.mark.browser

BUNDLE = "**/assets/index-*.js"  # Gradio's entry module: nothing of Gradio runs without it
AGENT_AT = """(root) => {
  const cells = [...document.querySelectorAll(root + ' .oe-board .oe-cell')];
  const i = cells.findIndex((c) => c.title === 'agent');
  return i < 0 ? null : [Math.floor(i / 5), i % 5];
}"""
SHELL, GRADIO = "#oe-shell", "#oe-stage"
CAPACITY = 3


class HeldBundle:
    """Holds Gradio's JavaScript entry module back until ``release()``."""

    def __init__(self, page) -> None:
        self.page, self.routes = page, []
        page.route(BUNDLE, self._hold)

    def _hold(self, route) -> None:
        self.routes.append(route)

    def release(self) -> None:
        deadline = time.monotonic() + 30
        while not self.routes:  # the page asked for it long ago; be sure the request is held
            assert time.monotonic() < deadline, "the page never asked for Gradio's bundle"
            self.page.wait_for_timeout(50)
        for route in self.routes:
            route.continue_()
        self.page.unroute(BUNDLE, self._hold)


def open_held(page, url: str) -> HeldBundle:
    held = HeldBundle(page)
    page.goto(url, wait_until="commit")
    return held


def shell_reset(page) -> None:
    page.click(f"{SHELL} .oe-shell-reset")
    page.wait_for_selector(f"{SHELL} .oe-act:not([disabled])")


def wait_steps(page, root: str, n: int) -> None:
    page.wait_for_selector(f'{root} .oe-stage[data-tab][data-steps="{n}"]')


def clean(page) -> None:
    assert page.console_errors == []
    assert page.external_requests == []


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog (app.py) with a Board env and a Frame env, three sessions each at most: the
    playgrounds live under /envs/<name>/web/."""
    envs = tmp_path_factory.mktemp("shell_catalog") / "envs"
    envs.mkdir()
    for package in ("grid_world_env", "wildfire_env"):
        (envs / package).symlink_to(ROOT / "envs" / package, target_is_directory=True)
    env = {
        "OPENENV_ENVS_DIR": str(envs),
        "MAX_CONCURRENT_ENVS": str(CAPACITY),
        "OPENENV_TRUSTED_PROXIES": "1",  # a visitor is whom X-Forwarded-For names, if sent
    }
    with serve("app:app", env=env, timeout=240) as url:
        yield url


@pytest.fixture
def grid(catalog) -> str:
    """The grid world's base URL in the catalog, with no playground session left open."""
    base = catalog + "/envs/grid_world"
    wait_web_sessions(base, 0)
    return base


def test_the_shell_plays_before_gradio_and_gradio_carries_the_episode_on(page, grid):
    held = open_held(page, grid + "/web/")
    shell_reset(page)
    assert page.evaluate(AGENT_AT, SHELL) == [0, 0]
    page.click(f"{SHELL} .oe-act:has-text('Down')")
    wait_steps(page, SHELL, 1)
    page.keyboard.press("ArrowRight")
    wait_steps(page, SHELL, 2)
    assert page.evaluate(AGENT_AT, SHELL) == [1, 1]
    assert page.locator(GRADIO).count() == 0  # all of that without Gradio
    assert web_sessions(grid) == 1

    held.release()
    wait_steps(page, GRADIO, 2)
    assert page.locator(SHELL).count() == 0  # the shell stepped aside
    assert page.evaluate(AGENT_AT, GRADIO) == [1, 1]
    page.click(f"{GRADIO} .oe-act:has-text('Down')")
    wait_steps(page, GRADIO, 3)
    assert page.evaluate(AGENT_AT, GRADIO) == [2, 1]
    assert page.locator(f"{GRADIO} .oe-log tbody tr").count() == 3  # the shell's steps included
    assert page.inner_text(f"{GRADIO} .oe-return") == "-0.3"
    assert web_sessions(grid) == 1  # adopted, not a second session
    clean(page)

    # The visitor leaves: the page says so as it goes (a beacon on pagehide; Gradio's heartbeat
    # would notice up to 15 s later), and the session is freed.
    page.goto("about:blank")
    wait_web_sessions(grid, 0)


def test_gradio_carries_on_the_shell_episode_of_a_visitor_behind_a_proxy(browser, grid):
    """An outside visitor (a Space's proxy names it): its tab is its own (the per-client quota,
    keys bound to their owner), and its Gradio page is the same visitor's, so adopts it."""
    context = browser.new_context(extra_http_headers={"X-Forwarded-For": "198.51.100.7"})
    page = context.new_page()
    try:
        held = open_held(page, grid + "/web/")
        shell_reset(page)
        page.click(f"{SHELL} .oe-act:has-text('Down')")
        wait_steps(page, SHELL, 1)
        held.release()
        wait_steps(page, GRADIO, 1)
        page.click(f"{GRADIO} .oe-act:has-text('Right')")
        wait_steps(page, GRADIO, 2)
        assert page.evaluate(AGENT_AT, GRADIO) == [1, 1]
        assert web_sessions(grid) == 1  # adopted, not a second session
    finally:
        context.close()


def test_browser_tabs_get_separate_shell_episodes(page, browser, grid):
    other = browser.new_context().new_page()  # another visitor
    sibling = page.context.new_page()  # a second tab of the same browser (same cookies)
    try:
        held = {p: open_held(p, grid + "/web/") for p in (page, other, sibling)}
        for p, moves in ((page, ["Down"]), (other, ["Right", "Right"]), (sibling, [])):
            shell_reset(p)
            for n, move in enumerate(moves, start=1):
                p.click(f"{SHELL} .oe-act:has-text('{move}')")
                wait_steps(p, SHELL, n)
        assert other.evaluate(AGENT_AT, SHELL) == [0, 2]
        assert web_sessions(grid) == 3
        # Each tab of one browser hands Gradio its own episode (sessionStorage, not a cookie).
        held[page].release()
        held[sibling].release()
        for p, steps, at in ((page, 1, [1, 0]), (sibling, 0, [0, 0])):
            wait_steps(p, GRADIO, steps)
            assert p.evaluate(AGENT_AT, GRADIO) == at
        assert web_sessions(grid) == 3
    finally:
        other.goto("about:blank")  # frees its shell-only session
        other.context.close()
        sibling.close()
    clean(page)


def test_a_frame_env_in_the_catalog_plays_in_the_shell(page, catalog):
    base = catalog + "/envs/wildfire"
    held = open_held(page, base + "/web/")
    shell_reset(page)
    assert page.locator(f"{SHELL} img.oe-frame").count() == 1
    page.keyboard.press(" ")  # the Wait action's key
    wait_steps(page, SHELL, 1)
    held.release()
    wait_steps(page, GRADIO, 1)
    assert page.locator(f"{GRADIO} img.oe-frame").count() == 1
    # The step taken in the shell is in Gradio's log, named by its button.
    assert "⏳ Wait" in page.inner_text(f"{GRADIO} .oe-log tbody")
    clean(page)


def test_a_full_server_says_so_and_a_closed_shell_tab_frees_its_session(page, browser, grid):
    open_held(page, grid + "/web/")
    shell_reset(page)
    assert web_sessions(grid) == 1
    others = [httpx.post(grid + "/web/stage/open", json={}).json()["tab"] for _ in range(2)]
    second = browser.new_context().new_page()
    try:
        open_held(second, grid + "/web/")
        second.click(f"{SHELL} .oe-shell-reset")
        message = second.locator(f"{SHELL} .oe-shell-msg.oe-error")
        message.wait_for()
        assert "server is full" in message.inner_text()
        assert second.locator(f"{SHELL} .oe-act").count() == 0
        # The tab leaves before Gradio loaded (Playwright's close() skips unload events, so
        # navigate away: pagehide fires as it does when a visitor closes the tab).
        page.goto("about:blank")
        wait_web_sessions(grid, CAPACITY - 1)
        shell_reset(second)
        assert web_sessions(grid) == CAPACITY
        second.goto("about:blank")
        wait_web_sessions(grid, CAPACITY - 1)
    finally:
        second.context.close()
        for key in others:
            httpx.post(grid + "/web/stage/close", json={"tab": key})
    assert web_sessions(grid) == 0
