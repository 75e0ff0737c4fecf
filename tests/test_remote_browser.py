"""``openenv playground URL`` in Chromium, in front of servers written with the reference
``openenv==0.10.0`` package and of one of ours over the network: buttons appear and play,
frames draw, a FEN is a board, tools are called, two browser contexts stay apart, and a remote
going down mid-episode is said in the page."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.compat.ref_servers import openenv_playground, ref_server
from tests.conftest import serve

pytestmark = [pytest.mark.browser, pytest.mark.compat]

STAGE = "#oe-stage .oe-stage"
BUTTONS = "#oe-stage button.oe-act"


@pytest.fixture(scope="module")
def fronted() -> Iterator[dict[str, str]]:
    """Each reference server with `openenv playground` in front of it (one process each)."""
    with contextlib.ExitStack() as stack:
        urls = {}
        for module in ("literal_grid", "frames", "text", "chess_fen", "mcp_tools"):
            remote = stack.enter_context(ref_server(module))
            urls[module] = stack.enter_context(openenv_playground(remote.url))
        yield urls


def steps(page) -> int:
    return int(page.locator(STAGE).get_attribute("data-steps"))


def test_literal_buttons_and_arrow_keys_play_a_reference_grid(page, fronted):
    page.goto(fronted["literal_grid"] + "/web/")
    page.wait_for_selector(f"{BUTTONS}:not([disabled])")
    assert [t.split()[0] for t in page.locator(BUTTONS).all_inner_texts()] == [
        "up",
        "down",
        "left",
        "right",
    ]
    assert page.locator(f"{BUTTONS} kbd").count() == 4  # each with its arrow key
    assert "A...." in page.locator("#oe-stage pre.oe-text").inner_text()
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    assert ".....\nA...." in page.locator("#oe-stage pre.oe-text").inner_text()
    page.click(f"{BUTTONS} >> text=right")
    page.wait_for_selector(f"{STAGE}[data-steps='2']")
    assert "-0.1" in page.locator("#oe-stage .oe-side").inner_text()  # the remote's reward
    assert page.console_errors == [] and page.external_requests == []


def test_a_flat_screen_draws_as_a_frame_and_named_buttons_move_it(page, fronted):
    page.goto(fronted["frames"] + "/web/")
    page.wait_for_selector("#oe-stage img.oe-frame")
    assert page.locator(BUTTONS).all_inner_texts() == ["NOOP", "LEFT", "RIGHT"]
    assert page.locator("#oe-stage img.oe-frame").evaluate("img => img.naturalWidth") == 32
    before = page.get_attribute("#oe-stage img.oe-frame", "src")
    page.click(f"{BUTTONS} >> text=RIGHT")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    assert page.get_attribute("#oe-stage img.oe-frame", "src") != before
    assert page.console_errors == []


def test_a_text_game_is_its_prompt_and_messages_and_a_guess_is_typed_on_the_stage(page, fronted):
    page.goto(fronted["text"] + "/web/")
    # a message is prose: a multi-line editor (rules.editor_hints), sent with Ctrl+Enter
    box = "#oe-stage form.oe-typed textarea[data-field='message']"
    page.wait_for_selector(f"{box}:not([disabled])")
    assert "I am thinking of a number" in page.locator("#oe-stage pre.oe-text").inner_text()
    # the remote's own refusal first (a guess of 10 may be right and end the episode)
    page.fill(box, "ten")
    page.press(box, "Control+Enter")
    page.wait_for_function(
        "() => /not a whole number/.test(document.querySelector('#oe-stage').innerText)"
    )
    assert steps(page) == 0
    page.fill(f"{box}:not([disabled])", "10")  # the episode goes on
    page.press(box, "Control+Enter")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    said = page.locator("#oe-stage pre.oe-text").inner_text()
    assert "assistant: 10" in said and any(w in said for w in ("Higher.", "Lower.", "Correct!"))
    assert "not a whole number" not in page.locator("#oe-stage").inner_text()
    assert page.console_errors == []


def test_a_fen_is_a_board_and_a_move_button_plays_it(page, fronted):
    page.goto(fronted["chess_fen"] + "/web/")
    page.wait_for_selector(f"{BUTTONS} >> text=e2e4")
    assert "White to move" in page.locator("#oe-stage .oe-view").inner_text()
    page.click(f"{BUTTONS} >> text=e2e4")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    assert page.locator("#oe-stage [title='e4']").inner_text() == "♙"
    assert page.console_errors == []


def test_two_browser_contexts_get_two_remote_sessions(browser, fronted):
    url = fronted["literal_grid"] + "/web/"
    one, two = browser.new_context(), browser.new_context()
    try:
        first, second = one.new_page(), two.new_page()
        for page in (first, second):
            page.goto(url)
            page.wait_for_selector(f"{BUTTONS}:not([disabled])", timeout=120_000)
        for n in (1, 2):
            first.click(f"{BUTTONS} >> text=down")
            first.wait_for_selector(f"{STAGE}[data-steps='{n}']")
        second.click(f"{BUTTONS} >> text=right")
        second.wait_for_selector(f"{STAGE}[data-steps='1']")
        walked = second.locator("#oe-stage pre.oe-text").inner_text()
        assert "[board]\n.A...\n" in walked  # its own walk: one step right, none down
        assert steps(first) == 2
    finally:
        one.close()
        two.close()


def test_the_tools_of_a_reference_tool_env_are_called_from_the_tools_tab(page, fronted):
    page.goto(fronted["mcp_tools"] + "/web/")
    page.wait_for_selector("#oe-tool-picker")
    page.fill("#oe-arg-add-a :is(input, textarea)", "2")
    page.fill("#oe-arg-add-b :is(input, textarea)", "3")
    page.click("#oe-tool-call")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    page.wait_for_function(
        "() => (document.querySelector('#oe-tool-result') || {}).innerText?.includes('5')"
    )
    assert page.console_errors == []


def test_a_remote_going_down_mid_episode_is_said_in_the_page(page):
    with ref_server("literal_grid") as remote, openenv_playground(remote.url) as url:
        page.goto(url + "/web/")
        page.wait_for_selector(f"{BUTTONS}:not([disabled])")
        page.click(f"{BUTTONS} >> text=down")
        page.wait_for_selector(f"{STAGE}[data-steps='1']")
        remote.stop()
        page.click(f"{BUTTONS} >> text=down")
        page.wait_for_function(
            "() => /remote server/.test(document.querySelector('#oe-stage').innerText)"
        )
        assert steps(page) == 1  # the episode shown is the one that was


def test_our_own_server_through_the_playground_uses_its_views(page):
    with (
        serve("grid_world_env.server.app:app", env={"ENABLE_WEB_INTERFACE": "0"}) as ours,
        openenv_playground(ours) as url,
    ):
        page.goto(url + "/web/")
        page.wait_for_selector("#oe-stage .oe-board [title=agent]")
        page.click(f"{BUTTONS} >> text=Down")
        page.wait_for_selector(f"{STAGE}[data-steps='1']")
        assert page.locator("#oe-stage .oe-board [title=agent]").count() == 1
        page.click("button[role=tab]:has-text('Python')")
        page.wait_for_function(
            f"() => document.querySelector('#oe-python')?.innerText.includes({ours!r})"
        )  # the snippet drives the remote itself
        assert page.console_errors == []
