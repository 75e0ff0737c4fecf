"""Reasoning gym's task picker in a real browser: the Reset options offer the shipped task file
and a row number; picking row 11 plays that row's question, and its answer scores 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stagewait import click_reset

from tests.conftest import unfold
from tests.servers import serve

pytest.importorskip("reasoning_gym", reason="needs the reasoning_gym extra")
pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
TASK_FILE = "sample_tasks.jsonl"


@pytest.fixture(scope="module")
def url():
    with serve("reasoning_gym_env.server.app:app", timeout=240) as base:
        yield base


def row(index: int) -> dict:
    import reasoning_gym_env

    path = Path(reasoning_gym_env.__file__).parent / "tasks" / TASK_FILE
    return json.loads(path.read_text().splitlines()[index])


def test_the_reset_options_pick_a_row_of_the_shipped_task_file(page, url):
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    unfold(page, "oe-options", "#oe-opt-task_source")
    page.click(f"#oe-opt-task_source label:has-text('{TASK_FILE}')")
    page.fill("#oe-opt-task_index :is(input, textarea)", "11")
    click_reset(page)
    expected = row(11)
    page.wait_for_selector(f"{STAGE}:has-text('strawberry')")
    assert "[task_source]" in page.inner_text("#oe-stage")
    box = "#oe-stage form.oe-typed :is(input, textarea)[data-field='answer']"
    page.fill(box, expected["answer"])
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    assert "Score: 1" in page.inner_text("#oe-stage")
    page.fill("#oe-opt-task_index :is(input, textarea)", "13")  # one past the last row
    page.click("#oe-reset")
    page.wait_for_selector("text=must be ≤ 12, got 13")
    assert page.console_errors == []
    assert page.external_requests == []
