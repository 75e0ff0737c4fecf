"""QED math in a real browser: the problem, its rubric and the solution box are on the first
screen; a solution typed there is marked item by item, and a full one earns 7/7."""

from __future__ import annotations

import pytest
from stagewait import click_reset

from tests.conftest import unfold
from tests.servers import artifacts, serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-stage form.oe-typed textarea[data-field='proof']"
PARTIAL = "n^2 + 2 = (n + 2)(n - 2) + 6, so the answer is \\boxed{\\{1, 4\\}}."
FULL = PARTIAL + "\nHence n + 2 divides 6, and n + 2 >= 3 leaves n = 1 or n = 4."


@pytest.fixture(scope="module")
def url():
    """The QED math server with its playground, proofs marked by the keyword stand-in."""
    with serve(
        "qed_math_env.server.app:app", env={"QED_MATH_GRADER": "keyword"}, timeout=240
    ) as base:
        yield base


def send(page, text: str, steps: int) -> str:
    page.fill(BOX, text)
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="{steps}"]')
    return page.inner_text("#oe-stage")


def test_a_solution_typed_on_the_stage_is_marked_then_earns_full_marks(page, url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    first = page.inner_text("#oe-stage")
    assert "PROBLEM" in first and "RUBRIC (7 points)" in first
    assert "final answer as \\boxed{...}" in page.inner_text("body")  # what to do, up front
    page.wait_for_selector(BOX)  # the box is on the first screen, not in a folded panel
    unfold(page, "oe-options", "#oe-opt-problem_id")
    page.fill("#oe-opt-problem_id :is(input, textarea)", "divides-n-squared-plus-two")
    page.fill("#oe-seed input, #oe-seed textarea", "1")
    click_reset(page)
    page.wait_for_selector(f"{STAGE}:has-text('divides-n-squared-plus-two')")
    page.screenshot(path=str(artifacts() / "qed_math_1280x800.png"))  # the first screen
    stage = send(page, PARTIAL, 1)
    assert "ATTEMPT 1: 4/7" in stage and "✗ Reduction: 0/2" in stage
    assert "2 attempts left" in stage and "KeywordGrader" in stage
    stage = send(page, FULL, 2)
    assert "ATTEMPT 2: 7/7" in stage and "Full marks!" in stage
    assert "REFERENCE SOLUTION" in stage
    assert page.console_errors == []
    assert page.external_requests == []
