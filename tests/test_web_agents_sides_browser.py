"""In a real browser: with connect4's built-in opponent (its default) and "the agent answers
each of my moves" ticked, each click drops one piece of the visitor's and the opponent's
reply, and the agent never plays the visitor's side."""

from __future__ import annotations

import pytest

from tests.conftest import serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage"


@pytest.fixture(scope="module")
def connect4():
    with serve("connect4_env.server.app:app", env={"OPENENV_AGENT": "random"}) as url:
        yield url


def test_the_agent_never_moves_the_visitors_piece_against_the_built_in_opponent(page, connect4):
    page.goto(connect4 + "/web/")
    page.wait_for_selector(f"{STAGE} .oe-act:not([disabled])")
    if not page.is_visible("#oe-agent-replies input"):  # in the folded Autoplay panel
        page.locator("#oe-autoplay").get_by_text("Autoplay").first.click()
    page.check("#oe-agent-replies input")
    for n in (1, 2, 3):
        page.click(f"{STAGE} .oe-act >> nth=3")
        page.wait_for_selector(f'{STAGE} .oe-stage[data-steps="{n}"]')
        page.wait_for_selector(f"{STAGE} .oe-act:not([disabled])")
    moves = page.locator(f"{STAGE} .oe-log tr.oe-logrow td:nth-child(2)").all_inner_texts()
    assert len(moves) == 3 and not any(m.startswith("🤖") for m in moves)
    titles = page.locator(f"{STAGE} .oe-board .oe-cell").evaluate_all(
        "cells => cells.map(c => c.getAttribute('title') || '')"
    )
    assert len(titles) == 42
    assert page.console_errors == []
