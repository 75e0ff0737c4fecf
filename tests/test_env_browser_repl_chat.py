"""The REPL and chat playgrounds in a real browser: a cell run from the code box shows in the
transcript, a typed message becomes a bubble (tokenised by the server)."""

from __future__ import annotations

import pytest

from tests.servers import catalog_serving

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog app serving only these two envs: one server process for the module."""
    with catalog_serving(tmp_path_factory.mktemp("repl_chat"), ("repl_env", "chat_env")) as url:
        yield url


def open_playground(page, url: str) -> None:
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')


def test_a_cell_run_from_the_repl_tab_shows_in_the_transcript(page, catalog):
    open_playground(page, f"{catalog}/envs/repl")
    assert "# step 0/30" in page.inner_text("#oe-stage")
    page.get_by_role("tab", name="REPL").click()
    page.click("#oe-repl-code .cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.type("x = 6 * 7\nx + 1")
    page.click("#oe-repl-run")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    transcript = page.inner_text("#oe-stage")
    assert ">>> x = 6 * 7\n... x + 1\n43" in transcript
    assert "ran without error" in page.inner_text("#oe-repl-status")
    page.fill("#oe-repl-answer textarea, #oe-repl-answer input", "43")
    page.click("#oe-repl-submit")
    page.wait_for_selector(f'{STAGE}[data-steps="2"]')
    assert "Final answer '43': recorded" in page.inner_text("#oe-stage")
    assert page.console_errors == []
    assert page.external_requests == []


def test_a_message_typed_in_the_chat_tab_becomes_a_bubble(page, catalog):
    open_playground(page, f"{catalog}/envs/chat")
    assert "You are a helpful assistant." in page.inner_text("#oe-stage")
    page.get_by_role("tab", name="Chat").click()
    page.fill("#oe-chat-text textarea", "Is <b>this</b> escaped?")
    page.click("#oe-chat-send")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    assert "Is <b>this</b> escaped?" in page.inner_text("#oe-stage")  # as text, not markup
    assert page.inner_text("#oe-chat-status").startswith("✓ sent ")
    page.click("#oe-stage .oe-act:has-text('assistant: Two plus two equals four.')")
    page.wait_for_selector(f'{STAGE}[data-steps="2"]')
    assert "Two plus two equals four." in page.inner_text("#oe-stage")
    assert page.console_errors == []
    assert page.external_requests == []
