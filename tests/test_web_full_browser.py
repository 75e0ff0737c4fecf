"""Past capacity the playground degrades gracefully (issue 36, item 4): a new visitor's page
says the server is full, when to try again and where else to play (the command that runs it
locally, the link that duplicates the Space), instead of hanging; an agent's /ws gets the
capacity error frame; the visitor already playing plays on."""

from __future__ import annotations

import json
import re

from websockets.sync.client import connect

from tests.conftest import serve, step_down_in_the_playground

DUPLICATE = "https://huggingface.co/spaces/someone/grid-demo?duplicate=true"


def test_a_full_server_tells_a_new_visitor_so_on_the_page(browser, page):
    env = {"MAX_CONCURRENT_ENVS": "1", "SPACE_ID": "someone/grid-demo"}
    with serve("grid_world_env.server.app:app", env=env) as url:
        playing = browser.new_context(viewport={"width": 1280, "height": 900})
        playing.set_default_timeout(90_000)
        first = playing.new_page()
        first.goto(url + "/web/")
        step_down_in_the_playground(first)  # the server's one session is this visitor's

        page.goto(url + "/web/")  # a new visitor
        notice = page.locator("#oe-stage .oe-msg-full")
        notice.wait_for()
        text = notice.inner_text()
        assert text.startswith("This server is full: its one session is in use"), text
        assert re.search(r"someone leaves, or .* \(the next one in \d+ min, unless", text), text
        assert "pip install openenv-playground && openenv serve grid_world" in text
        assert notice.locator("a").get_attribute("href") == DUPLICATE
        assert "This server is full right now" in page.locator("#oe-stage .oe-view").inner_text()
        # no buttons because it is full, not because the env has none: the Developer panel
        # (opened by the same load event that drew the notice) stays folded
        assert page.locator("#oe-dev").count() == 1
        assert page.locator("#oe-field-action").count() == 0
        assert page.console_errors == []

        with connect(url.replace("http", "ws") + "/ws") as ws:  # an agent
            refusal = json.loads(ws.recv(timeout=30))
        assert refusal["type"] == "error" and refusal["data"]["code"] == "CAPACITY_REACHED"

        first.click("#oe-stage .oe-act:has-text('Up')")  # the visitor playing plays on
        first.wait_for_selector('#oe-stage .oe-stage[data-steps="2"]')
        playing.close()
