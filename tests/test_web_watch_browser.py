"""Watching in a real browser: the live-sessions page lists a notebook's /ws session, and its
watch page follows the client's steps read-only; a protected server asks for its token first."""

from __future__ import annotations

import pytest
from grid_world_env import GridWorldAction, GridWorldEnv

from tests.conftest import serve

pytestmark = pytest.mark.browser

TOKEN = "watch-browser-token"


@pytest.fixture(scope="module")
def grid():
    with serve("grid_world_env.server.app:app", env={"OPENENV_API_TOKEN": TOKEN}) as url:
        yield url


def test_a_watcher_sees_a_clients_steps(page, grid):
    with GridWorldEnv(base_url=grid, api_token=TOKEN).sync() as env:
        env.reset(seed=5)
        env.step(GridWorldAction(action="DOWN"))
        page.goto(grid + "/web/watch")
        page.wait_for_selector(".oe-watch-token:not([hidden])")  # protected: token first
        page.fill(".oe-watch-token input", TOKEN)
        page.click(".oe-watch-token button")
        row = page.locator(".oe-watch-list tbody tr", has_text="ws client")
        row.wait_for()
        assert row.locator("td").nth(3).inner_text() == "1"
        assert not page.is_visible(".oe-watch-token")  # the token is in: the form is gone
        row.locator("a", has_text="watch").click()
        page.wait_for_selector('.oe-watched[data-steps="1"] .oe-view .oe-board')
        env.step(GridWorldAction(action="RIGHT"))
        env.step(GridWorldAction(action="RIGHT"))
        page.wait_for_selector('.oe-watched[data-steps="3"]')
        assert page.inner_text(".oe-w-total") == "-0.3"
        assert page.locator(".oe-w-chart svg").count() == 1
        assert page.locator(".oe-watched button.oe-act").count() == 0  # read-only
    assert page.console_errors == []
