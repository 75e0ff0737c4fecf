"""Catalog I in a real browser: each env's playground draws its board and a click changes it."""

from __future__ import annotations

import httpx
import pytest
from conftest import unfold

from tests.servers import catalog_serving

pytestmark = pytest.mark.browser

BOARD = "#oe-stage .oe-board"
ENVS = {  # package: name in the catalog
    "maze_env": "maze",
    "snake_env": "snake",
    "connect4_env": "connect4",
    "game_2048_env": "game_2048",
    "wordle_env": "wordle",
}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog app serving only these five envs: one server process for the module."""
    with catalog_serving(tmp_path_factory.mktemp("catalog1"), ENVS) as url:
        yield url


def test_the_catalog_lists_all_five(catalog):
    listed = {e["name"]: e for e in httpx.get(catalog + "/api/envs").json()}
    assert set(listed) == set(ENVS.values())
    assert all(e["available"] for e in listed.values())


def open_playground(page, url: str) -> str:
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core CI runner
    page.goto(url + "/web/")
    page.wait_for_selector(BOARD)
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="0"]')
    return page.inner_html(BOARD)


def wait_steps(page, n: int) -> None:
    page.wait_for_selector(f'#oe-stage .oe-stage[data-steps="{n}"]')


def guess(page, word: str) -> None:
    unfold(page, "oe-dev", "#oe-field-guess")
    page.fill("#oe-field-guess input, #oe-field-guess textarea", word)
    page.click("#oe-step")


def act(page, name: str) -> None:
    """Play one step the way a visitor would: a key, a button, or the form."""
    if name == "maze":
        page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
        page.keyboard.press("ArrowRight")  # the classic layout opens to the right
    elif name == "wordle":
        guess(page, "crane")
    elif name == "connect4":
        page.click("#oe-stage .oe-act:has-text('Column 4')")
    else:
        page.click("#oe-stage .oe-act:not([disabled]) >> nth=0")


@pytest.mark.parametrize("name", list(ENVS.values()))
def test_a_step_in_the_playground_changes_the_drawing(page, catalog, name):
    before = open_playground(page, f"{catalog}/envs/{name}")
    if name == "wordle":  # an invalid guess first: refused with its reason, nothing drawn
        guess(page, "zzzzz")
        page.wait_for_selector("text=not in the word list")
        assert page.inner_html(BOARD) == before
        assert page.get_attribute("#oe-stage .oe-stage", "data-steps") == "0"
    act(page, name)
    wait_steps(page, 1)
    after = page.inner_html(BOARD)
    assert after != before
    if name == "connect4":
        assert page.locator(f"{BOARD} .oe-cell[title^='red']").count() == 1
    if name == "wordle":
        assert page.inner_text(BOARD).replace("\n", "").startswith("CRANE")
    # Autoplay is offered where there are buttons to press at random, not to a form-only env.
    assert page.is_visible("#oe-play") == (name != "wordle")
    assert page.console_errors == []
    assert page.external_requests == []


def test_a_word_is_typed_on_the_stage_itself(page, catalog):
    """Wordle's action is a word: the stage takes it with the keyboard (Enter sends), keeps a
    refused one to correct, and empties the box once a guess is taken."""
    before = open_playground(page, f"{catalog}/envs/wordle")
    box = "#oe-stage form.oe-typed input[data-field='guess']"
    page.click(box)
    page.keyboard.type("zzzzz")
    page.keyboard.press("Enter")
    page.wait_for_selector("#oe-stage .oe-msg-error:has-text('not in the word list')")
    assert page.inner_html(BOARD) == before and page.input_value(box) == "zzzzz"
    page.fill(box, "")
    page.keyboard.type("crane")  # the cursor is still in the box
    page.keyboard.press("Enter")
    wait_steps(page, 1)
    assert page.inner_text(BOARD).replace("\n", "").startswith("CRANE")
    assert page.input_value(box) == ""
    page.keyboard.type("slate")
    page.keyboard.press("Enter")
    wait_steps(page, 2)
    assert page.console_errors == []
