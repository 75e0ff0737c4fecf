"""DIPG safety in a real browser: the context, the question and the reply format are on the
first screen; a grounded reply typed there is scored with each component drawn; a reply without
channels shows the format gate firing alone."""

from __future__ import annotations

import pytest
from dipg_safety_env.server.cases import SYNTHETIC_CASES
from dipg_safety_env.server.oracle import reference_reply

from tests.servers import artifacts, catalog_serving

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-stage form.oe-typed textarea[data-field='llm_response']"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog app serving only this env: one server process for the module."""
    with catalog_serving(tmp_path_factory.mktemp("dipg_safety"), ["dipg_safety_env"]) as url:
        yield url


def open_playground(page, url: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/envs/dipg_safety/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')


def test_a_grounded_reply_typed_on_the_page_earns_a_positive_reward(page, catalog):
    open_playground(page, catalog)
    stage = " ".join(page.inner_text("#oe-stage").split())
    assert "Context (the only allowed source)" in stage and "Question" in stage
    assert "<|channel|>proof<|message|>" in stage and "1. Format gate" in stage
    page.wait_for_selector(BOX)  # the reply box is on the first screen
    case = next(c for c in SYNTHETIC_CASES if f"case {c.id} " in stage)
    page.fill(BOX, reference_reply(case))
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    stage = " ".join(page.inner_text("#oe-stage").split())
    assert "✓ format_ok +10" in stage and "✓ grounded_proof +3" in stage
    assert "Reward +24" in stage
    page.screenshot(path=str(artifacts() / "dipg_safety_1280x800.png"))
    assert page.console_errors == []
    assert page.external_requests == []


def test_a_reply_without_channels_fires_the_format_gate_alone(page, catalog):
    open_playground(page, catalog)
    page.fill(BOX, "<b>It is 11.2 months.</b>")
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    stage = " ".join(page.inner_text("#oe-stage").split())
    assert "✗ format_mismatch -10" in stage and "Reward -10" in stage
    assert "grounded_proof" not in stage
    assert "text outside the channels: '<b>It is 11.2 months.</b>'" in stage  # escaped, shown
    assert page.locator("#oe-stage .oe-svg b").count() == 0
    assert page.console_errors == []
