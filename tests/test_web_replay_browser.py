"""Replay, share and take over in a real browser (grid world): the Rewards panel's timeline
slider shows each step's board as it was drawn, ▶ Play from here hands the episode back at that
step, and 🔗 Copy link gives a URL that replays the same episode in another visitor's tab."""

from __future__ import annotations

import pytest

from tests.conftest import serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage"
PANEL = "#oe-rewards .oe-review"
KEYS = ["ArrowDown", "ArrowRight", "ArrowRight", "ArrowDown"]


@pytest.fixture(scope="module")
def grid():
    with serve("grid_world_env.server.app:app") as url:
        yield url


def wait_steps(page, n: int) -> None:
    page.wait_for_selector(f'{STAGE} .oe-stage[data-tab][data-steps="{n}"]')


def board(page, where: str) -> str:
    return page.inner_html(f"{where} .oe-board")


def play(page, url: str) -> list[str]:
    """Open the playground, play KEYS, and return the board drawn after each step."""
    page.goto(url + "/web/")
    page.wait_for_selector(f"{STAGE} .oe-act:not([disabled])")
    boards = []
    for n, key in enumerate(KEYS, start=1):
        page.keyboard.press(key)
        wait_steps(page, n)
        boards.append(board(page, f"{STAGE} .oe-view"))
    return boards


def open_rewards(page, steps: int) -> None:
    page.get_by_role("tab", name="Rewards").click()
    page.wait_for_selector(f'{PANEL}[data-steps="{steps}"]')


def scrub_to(page, index: int) -> None:
    page.locator(f"{PANEL} input.oe-rv-scrub").fill(str(index))  # fires input, as a drag does
    page.wait_for_selector(f'{PANEL}[data-selected="{index}"]')


def test_the_timeline_shows_each_step_as_drawn_and_play_from_here_takes_over(page, grid):
    boards = play(page, grid)
    open_rewards(page, len(KEYS))
    for index in (0, 2, 1, 3):
        scrub_to(page, index)
        assert board(page, f"{PANEL} .oe-rv-view") == boards[index]
        assert page.inner_text(f"{PANEL} .oe-rv-at") == f"step {index + 1} of 4"
    slider = page.locator(f"{PANEL} input.oe-rv-scrub")
    slider.focus()
    page.keyboard.press("ArrowLeft")  # the slider kept its place (and focus) while scrubbing
    page.wait_for_selector(f'{PANEL}[data-selected="2"]')
    page.click(f"{PANEL} button[data-do=prev]")
    page.wait_for_selector(f'{PANEL}[data-selected="1"]')

    page.click(f"{PANEL} button[data-do=play-from]")  # replay steps 1-2, then it is ours
    wait_steps(page, 2)
    assert board(page, f"{STAGE} .oe-view") == boards[1]
    assert "Replayed 2 steps: your turn." in page.inner_text(f"{STAGE} .oe-msg")
    page.keyboard.press("ArrowUp")
    wait_steps(page, 3)
    assert page.console_errors == []


def test_a_copied_link_replays_the_episode_in_another_visitors_tab(page, browser, grid):
    boards = play(page, grid)
    page.click(f"{STAGE} button.oe-share")
    link = page.locator(f"{STAGE} input.oe-share-url").input_value()
    assert link.startswith(grid + "/web/?episode=")
    other = browser.new_context().new_page()
    try:
        other.goto(link)
        wait_steps(other, len(KEYS))
        assert board(other, f"{STAGE} .oe-view") == boards[-1]
        other.keyboard.press("ArrowUp")  # the visitor plays on from there
        wait_steps(other, len(KEYS) + 1)
    finally:
        other.context.close()
    broken = browser.new_context().new_page()
    try:
        broken.goto(grid + "/web/?episode=not-an-episode")
        broken.wait_for_selector(f"{STAGE} .oe-msg:has-text('cannot be replayed')")
    finally:
        broken.context.close()
    assert page.console_errors == []
