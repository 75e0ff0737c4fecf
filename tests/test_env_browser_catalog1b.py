"""Catalog I (b) in a real browser: chess, wildfire, OpenSpiel and reasoning gym playgrounds.

Each page draws its view (SVG board, RGB frame, text); one click (a move button, or the answer
form for reasoning gym) takes a step and the drawing changes.
"""

from __future__ import annotations

import importlib.util

import pytest
from conftest import unfold

from tests.conftest import serve

pytestmark = pytest.mark.browser

VIEW = "#oe-stage .oe-view"
DRAWINGS = {  # what each env's view is drawn as
    "chess": f"{VIEW} .oe-svg svg",
    "wildfire": f"{VIEW} img.oe-frame",
    "openspiel": f"{VIEW} .oe-board",
    "reasoning_gym": f"{VIEW} pre.oe-text",
}
EXTRAS = {"openspiel": "pyspiel", "reasoning_gym": "reasoning_gym"}


@pytest.fixture(scope="module", params=list(DRAWINGS))
def playground(request):
    """One env server with its playground; yields (env name, base URL)."""
    name = request.param
    module = EXTRAS.get(name)
    if module and importlib.util.find_spec(module) is None:
        pytest.skip(f"{name} needs its optional extra ({module} is not installed)")
    with serve(f"{name}_env.server.app:app", timeout=180) as url:
        yield name, url


def open_playground(page, name: str, url: str) -> str:
    page.goto(url + "/web/")
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="0"]')
    page.wait_for_selector(DRAWINGS[name])
    return page.inner_html(VIEW)


def act(page, name: str) -> None:
    """One step the way a visitor takes it."""
    if name == "reasoning_gym":
        unfold(page, "oe-dev", "#oe-field-answer")
        page.fill("#oe-field-answer input, #oe-field-answer textarea", "12")
        page.click("#oe-step")
    elif name == "openspiel":
        page.click("#oe-stage .oe-act:has-text('x(1,1)')")
    else:
        page.click("#oe-stage .oe-act:not([disabled]) >> nth=0")


def refuse_a_typed_illegal_move(page) -> None:
    """Chess: moves are labelled in SAN; a typed illegal move is refused and nothing moves."""
    labels = page.locator("#oe-stage .oe-act").all_inner_texts()
    assert len(labels) == 20 and any(label.startswith("N") for label in labels)
    unfold(page, "oe-dev", "#oe-field-move")
    page.fill("#oe-field-move input, #oe-field-move textarea", "e9e9")
    page.click("#oe-step")
    page.wait_for_selector("#oe-stage .oe-msg-error, .oe-form-msg:has-text('illegal')")
    assert page.get_attribute("#oe-stage .oe-stage", "data-steps") == "0"


def test_a_step_in_the_playground_changes_the_drawing(page, playground):
    name, url = playground
    before = open_playground(page, name, url)
    if name != "reasoning_gym":
        assert page.locator("#oe-stage .oe-act").count() > 0  # legal actions as buttons
    if name == "chess":
        refuse_a_typed_illegal_move(page)
        assert page.inner_html(VIEW) == before
    act(page, name)
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="1"]')
    page.wait_for_selector(DRAWINGS[name])
    after = page.inner_html(VIEW)
    assert after != before
    text = page.inner_text(VIEW)
    if name == "openspiel":
        assert "✕" in text  # the X played in the centre, drawn on the board
    if name == "reasoning_gym":
        assert "Your answer: 12" in text and "Score:" in text
    assert page.console_errors == []
    assert page.external_requests == []
