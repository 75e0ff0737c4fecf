"""Python CodeAct in a real browser: the task is on the stage, a visitor types code cells in the
box under it, the transcript shows each cell with its tests, and a solution wins."""

from __future__ import annotations

import pytest
from python_codeact_env.server.tasks import TASKS

from tests.servers import artifacts, catalog_serving

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-stage form.oe-typed textarea[data-field='code']"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog app serving only this env: one server process for the module."""
    with catalog_serving(tmp_path_factory.mktemp("codeact"), ["python_codeact_env"]) as url:
        yield url


def send(page, code: str, steps: int) -> str:
    page.fill(BOX, code)
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="{steps}"]')
    return page.inner_text("#oe-stage .oe-text")


def test_a_visitor_types_cells_until_the_function_passes(page, catalog):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(catalog + "/envs/python_codeact/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    first = page.inner_text("#oe-stage .oe-text")
    assert first.startswith("TASK (") and "write the function in the box below" in first
    task = first.split("TASK (", 1)[1].split(")", 1)[0]
    page.screenshot(path=str(artifacts() / "python_codeact_1280x800.png"))
    transcript = send(page, "import os", 1)
    assert "In [1]:\n    import os" in transcript
    solution = next(t.solution for t in TASKS if t.task_id == task)
    transcript = send(page, solution, 2)
    assert "→ Solved: every hidden test passes." in transcript
    # -1.0 for the unsafe cell, then 1.0 for the tests (+0.1 when the cell is concise)
    expected = "0.1" if len(solution.strip()) <= 100 else "0"
    assert page.inner_text("#oe-stage .oe-return") == expected
    assert page.console_errors == []
    assert page.external_requests == []
