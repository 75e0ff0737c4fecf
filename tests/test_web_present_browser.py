"""Presentation mode, as a stakeholder sees it: ``/web/?present=1`` plays the env by itself.

Under the catalog's prefix (``/envs/<name>/web/``), with nothing pressed: the stage alone and
large, the step and return counters in the first screen, the developer chrome (Developer
panel, controls, tabs) hidden, and the steps go on across the end of an episode into the next
one. Exit gives the playground back. The catalog links each env's presentation. Screenshots at
1280x800 and 390x844 go to the test artifacts (``$OPENENV_ARTIFACTS``, else
``tests/artifacts/``).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from conftest import BROWSER_WAIT_MS, ROOT, run_app_py, serve
from stagewait import click_reset
from test_web_layout_browser import DESKTOP, PHONE, artifacts

STAGE = "#oe-stage .oe-stage"
BAR = "#oe-present .oe-present-bar"
CHROME = ("#oe-dev", "#oe-controls", "#oe-tabs", "#oe-reset", "#oe-header")


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> Iterator[str]:
    """``python app.py`` over a grid world and a board game (Connect Four)."""
    envs = tmp_path_factory.mktemp("present") / "envs"
    envs.mkdir()
    for name in ("grid_world_env", "connect4_env"):
        (envs / name).symlink_to(ROOT / "envs" / name)
    with run_app_py(envs) as url:
        yield url


def open_present(browser, url: str, viewport: dict[str, int]):
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(BROWSER_WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector(f"{STAGE}[data-tab]")
    page.wait_for_selector(BAR)
    page.errors = errors  # type: ignore[attr-defined]
    return context, page


def number(page, selector: str, attribute: str) -> int:
    return int(page.get_attribute(selector, attribute) or 0)


def wait_at_least(page, selector: str, attribute: str, value: int) -> None:
    page.wait_for_function(
        "([sel, attr, value]) => Number(document.querySelector(sel)?.getAttribute(attr)) >= value",
        arg=[selector, attribute, value],
    )


def logged_moves(page) -> list[str]:
    """The moves of the stage's step log (hidden in present mode, drawn all the same)."""
    return page.locator("#oe-stage .oe-log tr.oe-logrow td:nth-child(2)").all_text_contents()


def in_first_screen(page, selector: str, viewport: dict[str, int]) -> bool:
    box = page.locator(selector).first.bounding_box()
    return (
        box is not None
        and box["width"] > 0
        and box["y"] >= 0
        and box["y"] + box["height"] <= viewport["height"]
    )


def assert_presenting(page, viewport: dict[str, int]) -> None:
    for selector in CHROME:  # the developer chrome is hidden
        assert not page.locator(selector).first.is_visible(), f"{selector} shows in present mode"
    assert page.locator("#oe-stage .oe-actions").first.is_visible() is False
    for counter in ("#oe-stage .oe-step", "#oe-stage .oe-return"):
        assert in_first_screen(page, counter, viewport), f"{counter} is not in the first screen"
        size = page.eval_on_selector(counter, "el => parseFloat(getComputedStyle(el).fontSize)")
        assert size >= 32, f"{counter} is {size}px: not a counter to read from afar"
    assert in_first_screen(page, BAR, viewport)
    assert page.locator(f"{BAR} .oe-present-caption").inner_text().strip()
    assert page.locator(f"{BAR} .oe-present-player").inner_text().strip()
    stage = page.locator("#oe-stage .oe-view").bounding_box()
    assert stage is not None and stage["y"] < viewport["height"] / 2


@pytest.mark.parametrize(
    ("name", "speed"),
    [("grid_world", 30), ("connect4", 20)],
)
def test_present_mode_plays_episode_after_episode_by_itself(
    browser, catalog: str, name: str, speed: int
) -> None:
    url = f"{catalog}/envs/{name}/web/?present=1&speed={speed}"
    context, page = open_present(browser, url, DESKTOP)
    try:
        assert_presenting(page, DESKTOP)
        # no OPENENV_AGENT: the env's own solver (the oracle its validation plays) plays
        assert "the env's solver" in page.inner_text(f"{BAR} .oe-present-player")
        assert page.get_attribute(BAR, "data-player") == "solver"
        assert page.inner_text(f"{BAR} .oe-present-speed").startswith(f"{speed} steps/s")
        wait_at_least(page, STAGE, "data-steps", 2)  # it plays, nothing pressed
        page.screenshot(path=str(artifacts() / f"present_{name}_1280x800.png"))
        # an episode ends (the solver wins it), a new one starts and plays on
        page.wait_for_function(
            "() => Number((/Episode over · return ([-+\\d.]+)/.exec("
            "document.querySelector('.oe-present-note')?.textContent || '') || [])[1]) > 0"
        )
        moves = logged_moves(page)  # the ended episode, drawn whole
        assert moves and all(m.startswith("🧭") for m in moves), moves
        wait_at_least(page, BAR, "data-episodes", 2)
        wait_at_least(page, STAGE, "data-steps", 1)
        assert_presenting(page, DESKTOP)
        # Pause stops the steps; Exit gives the playground back, controls and all
        page.click(f"{BAR} .oe-present-pause")
        page.wait_for_function("!window.openenvPlayground.isPlaying()")
        page.click(f"{BAR} .oe-present-exit")
        page.wait_for_selector("#oe-reset", state="visible")
        assert not page.locator(BAR).is_visible()
        assert "present=" not in page.url
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        context.close()


@pytest.mark.parametrize("name", ["grid_world", "connect4"])
def test_present_mode_on_a_phone(browser, catalog: str, name: str) -> None:
    context, page = open_present(browser, f"{catalog}/envs/{name}/web/?present=1", PHONE)
    try:
        wait_at_least(page, STAGE, "data-steps", 1)
        assert_presenting(page, PHONE)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.screenshot(path=str(artifacts() / f"present_{name}_390x844.png"))
    finally:
        context.close()


def test_the_present_button_starts_the_demo_and_the_catalog_links_it(browser, catalog: str) -> None:
    html = httpx.get(catalog + "/").text
    for name in ("grid_world", "connect4"):
        assert f'href="envs/{name}/web/?present=1"' in html
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(BROWSER_WAIT_MS)
    page = context.new_page()
    try:
        page.goto(catalog + "/")
        page.click('.card[data-name="grid_world"] a.present')
        page.wait_for_selector(f"{BAR}:visible")
        wait_at_least(page, STAGE, "data-steps", 1)
        page.click(f"{BAR} .oe-present-exit")
        page.wait_for_selector("#oe-present-btn", state="visible")
        page.click("#oe-present-btn")  # the page's own Present button
        page.wait_for_selector(f"{BAR}:visible")
        assert "present=1" in page.url
        assert_presenting(page, DESKTOP)
        before = number(page, BAR, "data-episodes")
        assert before >= 1
    finally:
        context.close()


def test_a_shared_link_is_presented_step_by_step_in_a_loop(browser, catalog: str) -> None:
    """``?episode=TOKEN&present=1``: the shared episode plays step by step, and again."""
    from openenv.web.episode.share import episode_token

    token = episode_token({"seed": 0}, [{"action": "DOWN"}] * 4 + [{"action": "RIGHT"}] * 4)
    url = f"{catalog}/envs/grid_world/web/?episode={token}&present=1&speed=30"
    context, page = open_present(browser, url, DESKTOP)
    try:
        assert "a shared episode" in page.inner_text(f"{BAR} .oe-present-player")
        wait_at_least(page, BAR, "data-episodes", 2)  # over, and played again
        page.wait_for_function(
            "() => Number((/Episode over · return ([-+\\d.]+)/.exec("
            "document.querySelector('.oe-present-note')?.textContent || '') || [])[1]) > 0"
        )
        moves = logged_moves(page)
        assert len(moves) == 8 and all(m.startswith("🎞") for m in moves), moves
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        context.close()


def test_present_random_plays_random_moves(browser, catalog: str) -> None:
    """``?present=random`` asks for autoplay's random moves, not the env's solver."""
    url = f"{catalog}/envs/grid_world/web/?present=random&speed=30"
    context, page = open_present(browser, url, DESKTOP)
    try:
        assert "random moves" in page.inner_text(f"{BAR} .oe-present-player")
        wait_at_least(page, STAGE, "data-steps", 2)
        page.click(f"{BAR} .oe-present-pause")  # the stage is drawn whole when play stops
        page.wait_for_function("!window.openenvPlayground.isPlaying()")
        page.wait_for_selector("#oe-stage .oe-log tr.oe-logrow", state="attached")
        moves = logged_moves(page)
        assert moves and not any(m.startswith("🧭") for m in moves), moves
    finally:
        context.close()


def test_bad_speed_is_bounded(browser, catalog: str) -> None:
    """``&speed=`` outside its bounds (or not a number) plays at a bounded speed."""
    for asked, shown in (("100000", "30 steps/s"), ("0.01", "0.5 steps/s"), ("fast", "2 steps/s")):
        url = f"{catalog}/envs/connect4/web/?present=1&speed={asked}"
        context, page = open_present(browser, url, DESKTOP)
        try:
            page.wait_for_function(
                "(text) => document.querySelector('.oe-present-speed')?.textContent === text",
                arg=shown,
            )
        finally:
            context.close()


def test_you_play_second_and_the_agent_opens_and_answers(browser, catalog: str) -> None:
    """Item 6 of issue 31: "you play" (connect4 with a second player's seat): the visitor plays
    the second side, the agent (random moves: no OPENENV_AGENT) opens and answers each move,
    never moving the visitor's pieces."""
    from openenv.web.episode.share import episode_token

    token = episode_token({"seed": 1, "opponent": "human"}, [])
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(BROWSER_WAIT_MS)
    page = context.new_page()
    try:
        page.goto(f"{catalog}/envs/connect4/web/?episode={token}")
        page.wait_for_selector("#oe-dev")
        page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
        page.click("#oe-autoplay > button.label-wrap")
        page.check("#oe-agent-replies input")
        side = page.locator("#oe-agent-side")
        assert side.get_by_label("Red", exact=True).count() == 1  # the env's sides
        side.get_by_label("Yellow", exact=True).check()
        page.wait_for_selector(f'{STAGE}[data-steps="1"]')  # the agent opened, as red
        page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
        page.click("#oe-stage .oe-act >> nth=3")  # the visitor: yellow
        page.wait_for_selector(f'{STAGE}[data-steps="3"]')  # and the agent answered
        moves = page.locator("#oe-stage .oe-log tr.oe-logrow td:nth-child(2)").all_inner_texts()
        moves.reverse()  # the log lists the last step first
        assert [m.startswith("🤖") for m in moves] == [True, False, True], moves
        # Reset with the same choice: the agent opens the new episode at once
        page.click("#oe-options")
        page.get_by_label("human", exact=True).check()
        click_reset(page)
        page.wait_for_function(
            "() => document.querySelector('#oe-stage .oe-log td:nth-child(2)')?.textContent"
            ".startsWith('🤖') && document.querySelector('#oe-stage .oe-stage')"
            ".dataset.steps === '1'"
        )
    finally:
        context.close()


def test_the_operators_agent_presents_when_one_is_configured(browser) -> None:
    """With OPENENV_AGENT set, the presentation's player is that agent, named on the bar (a
    server of its own, at /web without a prefix)."""
    agent = {"OPENENV_AGENT": "tests.agent_apps:leftmost"}
    with serve("grid_world_env.server.app:app", env=agent, cwd=ROOT) as url:
        context, page = open_present(browser, f"{url}/web/?present=agent&speed=30", DESKTOP)
        try:
            player = page.inner_text(f"{BAR} .oe-present-player")
            assert "tests.agent_apps:leftmost" in player and "🤖" in player
            wait_at_least(page, STAGE, "data-steps", 3)
            page.click(f"{BAR} .oe-present-exit")
            page.wait_for_selector("#oe-stage .oe-log", state="visible")
            page.wait_for_selector("#oe-stage .oe-logrow")
            moves = page.locator("#oe-stage .oe-log tr.oe-logrow td:nth-child(2)")
            assert all(m.startswith("🤖") for m in moves.all_inner_texts())
            assert page.errors == []  # type: ignore[attr-defined]
        finally:
            context.close()
