"""The /web playground in a real browser: one grid-world server, Chromium driving it."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from conftest import unfold
from stagewait import click_reset

from tests.conftest import wait_web_sessions, web_sessions

pytestmark = pytest.mark.browser

AGENT_AT = """() => {
  const cells = [...document.querySelectorAll('#oe-stage .oe-board .oe-cell')];
  const i = cells.findIndex((c) => c.title === 'agent');
  const cols = Number(getComputedStyle(document.querySelector('#oe-stage .oe-board'))
    .getPropertyValue('--cols'));
  return i < 0 ? null : [Math.floor(i / cols), i % cols];
}"""


def open_playground(page, url: str) -> None:
    page.goto(url + "/web/")
    page.wait_for_selector("#oe-stage .oe-act:not([disabled])")


def steps(page) -> int:
    return int(page.get_attribute("#oe-stage .oe-stage", "data-steps"))


def wait_steps(page, n: int) -> None:
    page.wait_for_selector(f'#oe-stage .oe-stage[data-steps="{n}"]')


def clean(page) -> None:
    assert page.console_errors == []
    assert page.external_requests == []


def test_button_and_arrow_key_move_the_agent(page, grid_server):
    open_playground(page, grid_server)
    assert page.evaluate(AGENT_AT) == [0, 0]
    page.click("#oe-stage .oe-act:has-text('Down')")
    wait_steps(page, 1)
    assert page.evaluate(AGENT_AT) == [1, 0]
    page.keyboard.press("ArrowRight")
    wait_steps(page, 2)
    assert page.evaluate(AGENT_AT) == [1, 1]
    page.keyboard.press("s")  # WASD works where the env declares arrows
    wait_steps(page, 3)
    assert page.evaluate(AGENT_AT) == [2, 1]
    assert "-0.3" in page.inner_text("#oe-stage .oe-return")
    clean(page)


def test_two_visitors_get_separate_episodes(page, browser, grid_server):
    open_playground(page, grid_server)
    other = browser.new_context().new_page()
    try:
        open_playground(other, grid_server)
        page.click("#oe-stage .oe-act:has-text('Down')")
        wait_steps(page, 1)
        for n in (1, 2):
            other.click("#oe-stage .oe-act:has-text('Right')")
            wait_steps(other, n)
        assert page.evaluate(AGENT_AT) == [1, 0]
        assert other.evaluate(AGENT_AT) == [0, 2]
        assert steps(page) == 1
    finally:
        other.context.close()
    clean(page)


def test_invalid_form_value_shows_an_error_and_changes_nothing(page, grid_server):
    open_playground(page, grid_server)
    page.keyboard.press("ArrowDown")
    wait_steps(page, 1)
    board = page.inner_html("#oe-stage .oe-view")
    unfold(page, "oe-dev", "#oe-step")
    page.click("#oe-step")  # no move chosen in the form (it offers no wire metadata box)
    error = page.locator("#oe-form-msg .oe-error")
    error.wait_for()
    assert "action: a value is required" in error.inner_text()
    assert steps(page) == 1
    assert page.inner_html("#oe-stage .oe-view") == board
    clean(page)


def test_form_step_applies_a_valid_action(page, grid_server):
    open_playground(page, grid_server)
    unfold(page, "oe-dev", "#oe-field-action")
    page.click("#oe-field-action label:has-text('RIGHT')")
    page.click("#oe-step")
    wait_steps(page, 1)
    assert page.evaluate(AGENT_AT) == [0, 1]
    clean(page)


def test_reaching_the_goal_disables_the_action_buttons(page, grid_server):
    open_playground(page, grid_server)
    for n, key in enumerate(["ArrowDown"] * 4 + ["ArrowRight"] * 4, start=1):
        page.keyboard.press(key)
        wait_steps(page, n)
    assert page.inner_text("#oe-stage .oe-status") == "done"
    buttons = page.locator("#oe-stage .oe-act")
    assert buttons.count() == 4
    assert all(buttons.nth(i).is_disabled() for i in range(4))
    assert "press Reset" in page.inner_text("#oe-stage .oe-msg")
    click_reset(page)  # and Reset starts over
    wait_steps(page, 0)
    assert page.evaluate(AGENT_AT) == [0, 0]
    clean(page)


def test_exported_jsonl_matches_the_steps_taken(page, grid_server, tmp_path):
    open_playground(page, grid_server)
    moves = ["ArrowDown", "ArrowRight", "ArrowUp"]
    for n, key in enumerate(moves, start=1):
        page.keyboard.press(key)
        wait_steps(page, n)
    with page.expect_download() as download:
        page.click("#oe-stage a.oe-dl:has-text('JSONL')")
    lines = download.value.path().read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["action"]["action"] for r in records] == ["DOWN", "RIGHT", "UP"]
    assert [(r["observation"]["x"], r["observation"]["y"]) for r in records] == [
        (1, 0),
        (1, 1),
        (0, 1),
    ]
    assert [r["reward"] for r in records] == [-0.1, -0.1, -0.1]
    assert [r["done"] for r in records] == [False, False, False]
    href = page.get_attribute("#oe-stage a.oe-dl:has-text('GIF')", "href")
    gif = page.context.request.get(f"{grid_server}/web/{href}")
    assert gif.ok and gif.body()[:6] == b"GIF89a"
    # ⬇ MP4 is fetched by the stage script (its progress bar while it encodes), then saved.
    with page.expect_download() as download:
        page.click("#oe-stage a.oe-dl:has-text('MP4')")
    assert download.value.suggested_filename == "grid_world-episode.mp4"
    assert download.value.path().read_bytes()[4:8] == b"ftyp"
    page.wait_for_selector("#oe-stage .oe-dl-progress", state="detached")
    clean(page)


def test_closing_the_tab_frees_its_session(browser, grid_server):
    wait_web_sessions(grid_server, 0)  # the tabs of earlier tests are gone
    context = browser.new_context()
    tab = context.new_page()
    open_playground(tab, grid_server)
    assert web_sessions(grid_server) == 1
    context.close()
    wait_web_sessions(grid_server, 0)


def test_python_snippet_runs_as_pasted(page, grid_server):
    open_playground(page, grid_server)
    page.keyboard.press("ArrowRight")
    wait_steps(page, 1)
    page.get_by_role("tab", name="Python").click()
    code = page.locator("#oe-python code")
    code.filter(has_text="GridWorldAction(action='RIGHT')").wait_for()
    source = code.inner_text()
    assert "from grid_world_env import GridWorldAction, GridWorldEnv" in source
    assert f"GridWorldEnv(base_url='{grid_server}')" in source
    run = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "reward: -0.1 done: False" in run.stdout
    clean(page)


def test_autoplay_runs_the_chosen_number_of_random_steps(page, grid_server):
    open_playground(page, grid_server)
    unfold(page, "oe-autoplay", "#oe-play-steps")
    page.fill("#oe-play-steps :is(input, textarea)", "3")
    page.click("#oe-play")
    wait_steps(page, 3)
    page.wait_for_function("() => !window.openenvPlayground.isPlaying()")
    assert steps(page) == 3
    assert page.locator("#oe-stage .oe-log tbody tr").count() == 3
    clean(page)


def test_autoplay_frames_make_no_queue_calls_and_nothing_is_kept_in_browser_storage(
    page, grid_server
):
    """Per frame only the fast-path call travels: the panels refresh when play stops, and while
    it plays at most once per 250 ms without an answer (a slow server's frames may each take
    that long, so the bound counts the time play took).

    Gradio 6.31 re-ran two "always_last" events on the stage's change against each other for
    as long as play went on (a pair of queue calls per frame, CartPole's autoplay at 5-15
    frames/s), and recorded every event's output in localStorage (run history).
    """
    open_playground(page, grid_server)
    joins: list[str] = []
    page.on("request", lambda r: joins.append(r.url) if "queue/join" in r.url else None)
    for rounds in (1, 2):  # the second time after the panels refreshed and Reset was pressed
        wait_panels_caught_up(page)
        joins.clear()
        started = time.monotonic()
        page.evaluate("() => window.openenvPlayground.play(12, 60)")  # resolves when play stops
        played_ms = (time.monotonic() - started) * 1000
        done = page.get_attribute("#oe-stage .oe-stage", "data-done") == "1"
        assert steps(page) == 12 or (done and steps(page) > 0)  # random steps may reach the goal
        wait_panels_caught_up(page)  # the Rewards panel shows every step played
        assert len(joins) <= 2 + played_ms // 250, (played_ms, joins)
        if rounds == 1:
            click_reset(page)
            wait_steps(page, 0)
    stored = page.evaluate("() => Object.keys(localStorage)")
    assert not [key for key in stored if "run-history" in key]
    clean(page)


def test_a_click_is_one_round_trip_that_brings_the_panels_in_view(page, grid_server):
    """The Rewards panel (on screen) comes back with the stage in the click's answer: no
    second call refreshes it, and it shows the step just taken."""
    open_playground(page, grid_server)
    wait_panels_caught_up(page)
    calls: list[str] = []
    page.on("request", lambda r: calls.append(r.url) if "/web/" in r.url else None)
    for n in (1, 2, 3):
        page.click("#oe-stage .oe-act:has-text('%s')" % ("Down" if n % 2 else "Up"))
        wait_steps(page, n)
        wait_panels_caught_up(page)
    # The page's refresh runs in a timer after each answer: let the timers queued by now run.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))")
    acts = [url for url in calls if url.endswith("/stage/act")]
    assert len(acts) == 3 and not [url for url in calls if url.endswith("/stage/panels")], calls
    clean(page)


def wait_panels_caught_up(page) -> None:
    """Wait until the Rewards panel shows as many steps as the stage (the panels' refresh)."""
    page.wait_for_function(
        """() => {
          const stage = document.querySelector('#oe-stage .oe-stage[data-steps]');
          const review = document.querySelector('#oe-tabs .oe-review[data-steps]');
          return stage && review && stage.dataset.steps === review.dataset.steps &&
            !window.openenvPlayground.isPlaying();
        }"""
    )


def test_on_a_phone_the_stage_comes_before_the_controls(page, browser, grid_server):
    def boxes(p) -> tuple[dict, dict]:
        return p.locator("#oe-stage").bounding_box(), p.locator("#oe-controls").bounding_box()

    open_playground(page, grid_server)  # 1280 px: the stage first, the controls beside it
    stage, controls = boxes(page)
    assert stage["x"] < controls["x"] and controls["y"] <= stage["y"]
    assert page.locator("#oe-reset").bounding_box()["y"] < stage["y"]  # Reset above the stage
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    try:
        # The fast shell, before Gradio's bundle arrives: its Reset is on the first screen, and
        # the stage fits the phone's width.
        phone.route("**/assets/index-*.js", lambda route: None)  # held: never answered
        phone.goto(grid_server + "/web/", wait_until="commit")
        phone.wait_for_selector("#oe-shell .oe-shell-stage")
        reset = phone.locator("#oe-shell .oe-shell-reset").bounding_box()
        assert reset["y"] + reset["height"] <= 844
        shell_stage = phone.locator("#oe-shell .oe-shell-stage").bounding_box()
        assert shell_stage["x"] + shell_stage["width"] <= 390
        phone.unroute("**/assets/index-*.js")
        open_playground(phone, grid_server)
        stage, controls = boxes(phone)
        assert stage["y"] + stage["height"] <= controls["y"]  # the board first, then the forms
    finally:
        phone.context.close()


def state_step_count(page) -> int | None:
    unfold(page, "oe-dev", "#oe-state")
    text = page.inner_text("#oe-state")
    return json.loads(text[text.index("{") :])["step_count"] if "{" in text else None


@pytest.mark.parametrize("pause_s", [0.0, 0.7])
def test_every_click_counts_and_the_state_tab_follows(page, grid_server, pause_s):
    """Reset, then three clicks on a move button, fast or 0.7 s apart (a visitor's pace): the
    stage shows three steps and so does the State tab, every time."""
    open_playground(page, grid_server)
    click_reset(page)
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="0"] .oe-act:not([disabled])')
    unfold(page, "oe-dev", "#oe-state")  # the state is in the Developer panel
    for _ in range(3):
        page.click("#oe-stage .oe-act:has-text('Right')")
        page.wait_for_timeout(pause_s * 1000)  # the visitor's pace, not a wait for the server
    wait_steps(page, 3)
    page.wait_for_function(
        "() => /\"step_count\": 3/.test(document.querySelector('#oe-state').innerText)"
    )
    assert page.evaluate(AGENT_AT) == [0, 3] and state_step_count(page) == 3
    clean(page)
