"""The TB2 playground in a real browser: the task is on the stage at first sight; commands
typed in the Terminal tab fix the script, and Evaluate runs the task's tests: reward 1."""

from __future__ import annotations

import pytest

from tests.conftest import serve
from tests.servers import artifacts

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-tb2-command textarea"


@pytest.fixture(scope="module")
def tbench2_url():
    with serve("tbench2_env.server.app:app") as url:
        yield url


def run(page, command: str, steps: int) -> None:
    page.fill(BOX, command)
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{STAGE}[data-steps='{steps}']")


def test_commands_in_the_terminal_tab_and_evaluate_score_the_task(page, tbench2_url):
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core machine
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(tbench2_url + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0']")
    view = page.inner_text("#oe-stage .oe-view")
    assert "Task hello-world · easy · file-operations · local mode" in view
    assert "Create a file named hello.txt in /app" in view
    page.get_by_role("tab", name="Terminal").click()
    run(page, "echo 'Hello, world!' > hello.txt", 1)
    run(page, "cat /app/hello.txt", 2)
    assert "/app $ cat /app/hello.txt\nHello, world!" in page.inner_text("#oe-stage .oe-view")
    assert "✓ exit code 0 · in /app" in page.inner_text("#oe-tb2-status")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts() / "tbench2_1280x800.png"))
    page.click("#oe-tb2-evaluate")
    page.wait_for_selector(f"{STAGE}[data-steps='3']")
    assert "Tests: 2/2 passed → reward 1" in page.inner_text("#oe-stage .oe-view")
    assert "tests: 2/2 passed · reward 1.0" in page.inner_text("#oe-tb2-status")
    assert page.console_errors == []
    assert page.external_requests == []
