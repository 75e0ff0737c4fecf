"""Frames in a real browser: Pong autoplays in the playground and its picture keeps moving."""

from __future__ import annotations

import pytest
from conftest import unfold
from stagewait import click_reset

pytest.importorskip("ale_py", reason="the atari extra is not installed")

from tests.conftest import serve

pytestmark = pytest.mark.browser

FRAME = "#oe-stage img.oe-frame"
STEPS = "() => Number(document.querySelector('#oe-stage .oe-stage').dataset.steps)"


@pytest.fixture(scope="module")
def pong():
    with serve("atari_env.server.app:app") as url:
        yield url


def frame_src(page) -> str:
    return page.get_attribute(FRAME, "src")


def test_pong_autoplays_and_the_frame_changes(page, pong):
    page.goto(pong + "/web/")
    page.wait_for_selector(FRAME)
    assert page.locator("#oe-stage button.oe-act").count() == 6  # one button per action
    page.wait_for_function("() => window.openenvPlayground && window.openenvPlayground.play")
    first = frame_src(page)
    assert first.startswith("data:image/png;base64,")
    page.evaluate("() => { window.openenvPlayground.play(0, 30); }")
    page.wait_for_function(f"() => ({STEPS})() >= 12", timeout=60_000)
    assert page.evaluate("() => window.openenvPlayground.isPlaying()")
    seen = {first}
    for _ in range(6):  # the ball and paddles move: the picture keeps changing while playing
        page.wait_for_function(
            "(src) => document.querySelector('#oe-stage img.oe-frame').src !== src",
            arg=frame_src(page),
        )
        seen.add(frame_src(page))
    page.evaluate("() => window.openenvPlayground.stop()")
    page.wait_for_function("() => !window.openenvPlayground.isPlaying()")
    assert len(seen) >= 7
    assert page.locator(FRAME).evaluate("img => img.naturalWidth") == 160
    assert page.console_errors == [] and page.external_requests == []


def test_arrow_keys_move_the_pong_paddle(page, pong):
    page.goto(pong + "/web/")
    page.wait_for_selector("#oe-stage .oe-stage[data-steps='0']")
    page.wait_for_selector("#oe-stage button.oe-act:not([disabled])")
    before = frame_src(page)
    for step in range(1, 4):
        page.keyboard.press("ArrowUp")  # RIGHT: the paddle goes up
        page.wait_for_selector(f"#oe-stage .oe-stage[data-steps='{step}']")
    assert frame_src(page) != before
    assert page.console_errors == []


def test_the_game_is_picked_from_a_drop_down_of_the_playable_games(page, pong):
    page.goto(pong + "/web/")
    page.wait_for_selector("#oe-stage .oe-stage[data-steps='0']")
    page.wait_for_function("() => window.openenvPlayground && window.openenvPlayground.play")
    unfold(page, "oe-options", "#oe-opt-game_name")
    page.click("#oe-opt-game_name input")
    page.keyboard.type("break")  # typing filters the list
    options = page.locator("ul[role='listbox'] li")
    page.wait_for_function("() => document.querySelectorAll(\"ul[role='listbox'] li\").length")
    assert options.all_inner_texts() == ["breakout"]
    options.first.click()
    before = frame_src(page)
    click_reset(page)
    # Breakout's minimal action set has 4 buttons (Pong's has 6), and its screen is drawn.
    buttons = "#oe-stage button.oe-act"
    page.wait_for_function(f"() => document.querySelectorAll({buttons!r}).length == 4")
    labels = [text.split()[0] for text in page.locator(buttons).all_inner_texts()]
    assert labels == ["NOOP", "FIRE", "RIGHT", "LEFT"]
    assert frame_src(page) != before
    assert page.console_errors == []
