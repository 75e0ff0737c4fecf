"""The server's agent in a real browser: 🤖 autoplay, taking over with one move, and the agent
answering each move of a two-player game (a policy on the server, OPENENV_AGENT)."""

from __future__ import annotations

import pytest
from conftest import unfold

from openenv.web.episode.share import episode_token
from tests.conftest import serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage"
AGENT = {"OPENENV_AGENT": "tests.agent_apps:leftmost"}


@pytest.fixture(scope="module")
def grid():
    with serve("grid_world_env.server.app:app", env=AGENT) as url:
        yield url


@pytest.fixture(scope="module")
def connect4():
    with serve("connect4_env.server.app:app", env=AGENT) as url:
        yield url


def steps(page) -> int:
    return int(page.get_attribute(f"{STAGE} .oe-stage[data-tab]", "data-steps"))


def logged(page) -> list[str]:
    return page.locator(f"{STAGE} .oe-log tr.oe-logrow td:nth-child(2)").all_inner_texts()


def test_the_agent_plays_and_one_move_takes_over(page, grid):
    page.goto(grid + "/web/")
    page.wait_for_selector(f"{STAGE} .oe-act:not([disabled])")
    unfold(page, "oe-autoplay", "#oe-play-agent")
    page.check("#oe-play-agent input")
    page.click("#oe-play")
    page.wait_for_function("() => window.openenvPlayground.isPlaying()")
    page.wait_for_function(
        "() => Number(document.querySelector('#oe-stage .oe-stage').dataset.steps) >= 3"
    )
    page.keyboard.press("ArrowDown")  # the visitor's move: autoplay stops, the move is made
    page.wait_for_function("() => !window.openenvPlayground.isPlaying()")
    page.wait_for_function("() => !document.body.classList.contains('oe-playing')")
    moves = logged(page)
    assert moves[0] == "↓ Down" and all(m.startswith("🤖 ") for m in moves[1:])
    assert steps(page) == len(moves)
    assert page.console_errors == []


def test_the_agent_answers_each_move_of_a_two_player_game(page, connect4):
    token = episode_token({"seed": 1, "opponent": "human"}, [])  # a second player's seat
    page.goto(connect4 + f"/web/?episode={token}")
    page.wait_for_selector(f"{STAGE} .oe-act:not([disabled])")
    unfold(page, "oe-autoplay", "#oe-agent-replies")
    page.check("#oe-agent-replies input")
    page.click(f"{STAGE} .oe-act >> nth=3")
    page.wait_for_selector(f'{STAGE} .oe-stage[data-steps="2"]')
    mine, its = logged(page)[::-1]
    assert not mine.startswith("🤖") and its.startswith("🤖 ")
    page.uncheck("#oe-agent-replies input")
    page.click(f"{STAGE} .oe-act >> nth=3")
    page.wait_for_selector(f'{STAGE} .oe-stage[data-steps="3"]')
    assert page.console_errors == []
