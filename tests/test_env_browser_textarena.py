"""TextArena in a real browser: pick Minesweeper from the drop-down, click a cell, see it open."""

from __future__ import annotations

import re

import pytest
from conftest import unfold
from stagewait import click_reset

from tests.conftest import serve

pytestmark = pytest.mark.browser

BOARD = "#oe-stage .oe-board"
STAGE = "#oe-stage .oe-stage"


@pytest.fixture(scope="module")
def textarena():
    with serve("textarena_env.server.app:app", timeout=240) as url:
        yield url


def pick_game(page, env_id: str) -> None:
    unfold(page, "oe-options", "#oe-opt-env_id")
    page.click("#oe-opt-env_id input")
    exact = re.compile(rf"^(✓\s*)?{re.escape(env_id)}$")  # the chosen one carries a tick
    page.locator("ul[role='listbox'] li").filter(has_text=exact).first.click()
    click_reset(page)


def test_a_click_on_a_minesweeper_cell_reveals_it(page, textarena):
    page.set_default_timeout(60_000)  # Gradio on a busy 2-core runner
    page.goto(textarena + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0']")
    pick_game(page, "Minesweeper-v0-small")
    hidden = f"{BOARD} button.oe-cell-act"
    page.wait_for_function(f"() => document.querySelectorAll({hidden!r}).length == 25")
    page.click(f"{BOARD} button.oe-cell-act[data-r='2'][data-c='2']")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    # The first click is always safe and opens at least that cell.
    page.wait_for_function(f"() => document.querySelectorAll({hidden!r}).length < 25")
    assert page.locator(f"{BOARD} button[data-r='2'][data-c='2']").count() == 0
    assert page.console_errors == [] and page.external_requests == []


def test_tic_tac_toe_squares_are_clicked_and_the_opponent_replies(page, textarena):
    page.set_default_timeout(60_000)
    page.goto(textarena + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0']")
    pick_game(page, "TicTacToe-v0")
    free = f"{BOARD} button.oe-cell-act"
    page.wait_for_function(f"() => document.querySelectorAll({free!r}).length == 9")
    page.click(f"{BOARD} button.oe-cell-act[data-r='1'][data-c='1']")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    page.wait_for_function(f"() => document.querySelectorAll({free!r}).length == 7")
    text = page.inner_text(BOARD)
    assert "O" in text and "X" in text
    assert page.console_errors == []


def test_the_task_picker_plays_a_row_and_is_cleared_back_to_none(page, textarena):
    """Reset options: games.jsonl's row 9 (Tic-Tac-Toe), then "(none)" and a blank row: the
    default game again, on the same page."""
    page.set_default_timeout(60_000)
    page.goto(textarena + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0']")
    unfold(page, "oe-options", "#oe-opt-task_source")
    source = page.locator("#oe-opt-task_source")
    assert source.get_by_label("(none)").is_checked()
    source.get_by_label("games.jsonl").check()
    page.fill("#oe-opt-task_index :is(input, textarea)", "9")
    click_reset(page)
    free = f"{BOARD} button.oe-cell-act"
    page.wait_for_function(f"() => document.querySelectorAll({free!r}).length == 9")
    source.get_by_label("(none)").check()
    page.fill("#oe-opt-task_index :is(input, textarea)", "")
    click_reset(page)
    page.wait_for_function(f"() => document.querySelectorAll({free!r}).length == 0")
    assert "elsewhere in the word" in page.inner_text(STAGE)  # Wordle's legend
    assert page.console_errors == []
