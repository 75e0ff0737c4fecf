"""Reasoning Core in a real browser: the question and the answer box are on the first screen;
a task and difficulty chosen in Reset options give the seed's question, and its answer typed on
the stage scores 1."""

from __future__ import annotations

import pytest
from stagewait import click_reset

pytest.importorskip("reasoning_core", reason="needs the reasoning_core extra")

from tests.conftest import unfold
from tests.servers import artifacts, serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-stage form.oe-typed textarea[data-field='answer']"


@pytest.fixture(scope="module")
def url():
    with serve("reasoning_core_env.server.app:app", timeout=240) as base:
        yield base


def expected_answer(seed: int, task: str) -> str:
    """The answer to the seed's question, generated here by a helper of this process."""
    from reasoning_core_env.server.environment import ReasoningCoreEnvironment
    from reasoning_core_env.server.generator import generator

    env = ReasoningCoreEnvironment()
    env.reset(seed=seed, task=task)
    generator().stop()
    return env._question["answer"]


def test_the_seeds_question_answered_on_the_stage_scores_one(page, url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(120_000)  # the helper's first question imports the generators
    page.goto(url + "/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    assert "Reasoning Core · " in page.inner_text("#oe-stage")
    assert "verifier scores it" in page.inner_text("body")  # what to do, up front
    page.wait_for_selector(BOX)
    unfold(page, "oe-options", "#oe-opt-task")
    page.fill("#oe-opt-task :is(input, textarea)", "equation_system")
    page.fill("#oe-seed input, #oe-seed textarea", "3")
    click_reset(page)
    page.wait_for_selector(f"{STAGE}:has-text('equation_system · Mathematics · difficulty 0')")
    page.screenshot(path=str(artifacts() / "reasoning_core_1280x800.png"))
    page.fill(BOX, expected_answer(3, "equation_system"))
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    stage = page.inner_text("#oe-stage")
    assert "Correct! Score 1." in stage and "Reference answer:" in stage
    assert page.console_errors == []
    assert page.external_requests == []
