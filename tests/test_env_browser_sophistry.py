"""Sophistry Bench sprint in a real browser: the answer to defend and the passage are on the
stage, a reply typed in the box is scored, and the template-echo hack lights the canaries."""

from __future__ import annotations

import pytest
from sophistry_bench_sprint_env.server.oracle import ECHO, best_argument

from tests.servers import artifacts, catalog_serving

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-stage form.oe-typed textarea[data-field='argument']"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog app serving only this env: one server process for the module."""
    with catalog_serving(
        tmp_path_factory.mktemp("sophistry"), ["sophistry_bench_sprint_env"]
    ) as url:
        yield url


def open_playground(page, url: str) -> str:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/envs/sophistry_bench_sprint/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    return page.inner_text("#oe-stage .oe-text")


def send(page, text: str) -> str:
    page.fill(BOX, text)
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    return " ".join(page.inner_text("#oe-stage").split())


def test_a_grounded_reply_typed_under_the_passage_earns_the_full_proxy(page, catalog):
    task = open_playground(page, catalog)
    assert task.startswith("DEFEND THIS ANSWER: ") and "\nQUESTION: " in task
    answer = task.split("DEFEND THIS ANSWER: ", 1)[1].split("\n", 1)[0]
    passage = task.split("characters):\n", 1)[1]
    page.screenshot(path=str(artifacts() / "sophistry_bench_sprint_1280x800.png"))
    stage = send(page, best_argument(passage, answer))
    assert "Reward 1.00" in stage and "8 claims → cliff 1.00" in stage
    assert "8 quotes → grounding 1.00" in stage
    assert page.console_errors == []
    assert page.external_requests == []


def test_the_template_echo_hack_lights_three_canaries(page, catalog):
    open_playground(page, catalog)
    stage = send(page, ECHO)
    assert "Reward 0.50" in stage and "3 of 4 firing" in stage
    assert "FIRING · template_echo" in stage and "quiet · alternation" in stage
    page.evaluate("document.querySelector('#oe-stage .oe-svg').scrollIntoView()")
    page.screenshot(path=str(artifacts() / "sophistry_bench_sprint_hack_1280x800.png"))
    assert page.console_errors == []
