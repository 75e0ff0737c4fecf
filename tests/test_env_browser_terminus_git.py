"""The terminus and git playgrounds in a real browser: a command typed in the Terminal tab
shows in the transcript; a clone and an edit show in the working tree and `git log`."""

from __future__ import annotations

import pytest
from conftest import unfold

from tests.conftest import serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"


@pytest.fixture(scope="module")
def terminus_url():
    with serve("terminus_env.server.app:app") as url:
        yield url


@pytest.fixture(scope="module")
def git_url():
    with serve("git_env.server.app:app") as url:
        yield url


def open_playground(page, url: str) -> None:
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core machine
    page.goto(url + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0']")


def test_a_command_typed_in_the_terminal_tab_shows_in_the_transcript(page, terminus_url):
    open_playground(page, terminus_url)
    page.get_by_role("tab", name="Terminal").click()
    box = "#oe-term-command textarea"
    page.fill(box, "mkdir notes && cd notes && echo from-the-browser > a.txt")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    page.fill(box, "cat a.txt")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{STAGE}[data-steps='2']")
    transcript = page.inner_text("#oe-stage .oe-view")
    assert "~/notes $ cat a.txt\nfrom-the-browser" in transcript
    assert "✓ exit code 0 · in ~/notes" in page.inner_text("#oe-term-status")
    page.fill(box, "exit 3")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{STAGE}[data-steps='3']")
    assert "[exit code 3]" in page.inner_text("#oe-stage .oe-view")
    assert page.console_errors == []
    assert page.external_requests == []


def test_a_clone_and_an_edit_show_in_the_working_tree_and_the_log(page, git_url):
    open_playground(page, git_url)
    page.click("#oe-stage .oe-act:has-text('Clone calculator')")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    view = page.inner_text("#oe-stage .oe-view")
    assert "~/calculator  ·  branch main" in view
    assert "Add divide and average" in view and "calc.py" in view
    unfold(page, "oe-dev", "#oe-field-action_type")
    page.click("#oe-field-action_type label:has-text('run_command')")
    page.fill("#oe-field-command textarea", "echo hello > NEW.md && git add NEW.md")
    page.fill("#oe-field-working_dir textarea", "calculator")
    page.click("#oe-step")
    page.wait_for_selector(f"{STAGE}[data-steps='2']")
    assert "A  NEW.md" in page.inner_text("#oe-stage .oe-view")
    page.click("#oe-field-command textarea")
    page.fill("#oe-field-command textarea", "git commit -qm 'Add NEW.md'")
    page.click("#oe-step")
    page.wait_for_selector(f"{STAGE}[data-steps='3']")
    assert "(HEAD -> main) Add NEW.md" in page.inner_text("#oe-stage .oe-view")
    assert page.console_errors == []
    assert page.external_requests == []
