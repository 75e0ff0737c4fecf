"""The reward debugger in a real browser: components per step, time travel, a loaded episode file
and two runs compared. One rubric-scored coin-guessing server (tests/reward_apps.py)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from conftest import serve, unfold
from stagewait import click_reset

pytestmark = pytest.mark.browser

TESTS = Path(__file__).resolve().parent
PANEL = "#oe-rewards .oe-review"


@pytest.fixture(scope="module")
def coin_server():
    with serve("reward_apps:app", args=["--app-dir", str(TESTS)]) as url:
        yield url


def open_rewards(page, url: str) -> None:
    page.goto(url + "/web/")
    page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
    page.get_by_role("tab", name="Rewards").click()
    page.wait_for_selector("#oe-rewards .oe-review")


def act(page, label: str, n: int) -> None:
    """Press a legal-action button and wait until the panel shows step ``n``."""
    page.click(f"#oe-stage .oe-act:has-text('{label}')")
    page.wait_for_selector(f'{PANEL}[data-steps="{n}"]')


def reset(page, seed: int) -> None:
    unfold(page, "oe-options", "#oe-seed")
    page.fill("#oe-seed textarea, #oe-seed input", str(seed))
    click_reset(page)
    page.wait_for_selector(f'{PANEL}[data-steps="0"]')


def table(page) -> dict[str, list[str]]:
    """The component table as the visitor reads it: {component: [score, weight, w·score]}."""
    rows = page.locator(f"{PANEL} table.oe-components tbody tr")
    out = {}
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td").all_inner_texts()
        out[cells[0].strip()] = [c.strip() for c in cells[1:]]
    return out


def log_rewards(page) -> list[str]:
    cells = page.locator(f"{PANEL} tr.oe-steprow td:nth-child(3)").all_inner_texts()
    return [c.strip() for c in cells]


def clean(page) -> None:
    assert page.console_errors == []
    assert page.external_requests == []


def test_component_table_appears_after_a_step(page, coin_server):
    open_rewards(page, coin_server)
    reset(page, 3)
    act(page, "Heads", 1)
    caption = page.inner_text(f"{PANEL} table.oe-components caption")
    parts = table(page)
    assert set(parts) == {"correct", "step_cost"}
    assert parts["step_cost"] == ["+1", "-0.05", "-0.05"]
    correct = float(parts["correct"][2])
    assert caption == f"Step 1: reward {correct - 0.05:+.4g}"
    assert page.locator(f"{PANEL} svg.oe-stacked .oe-bar").count() == 1
    clean(page)


def test_clicking_an_earlier_step_shows_that_steps_components(page, coin_server):
    open_rewards(page, coin_server)
    reset(page, 5)
    for n, label in enumerate(["Heads", "Tails", "Heads", "Tails"], start=1):
        act(page, label, n)
    rewards = log_rewards(page)
    page.click(f'{PANEL} tr.oe-steprow[data-step="1"]')
    page.wait_for_selector(f'{PANEL}[data-selected="1"]')
    assert page.inner_text(f"{PANEL} table.oe-components caption") == (
        f"Step 2: reward {rewards[1]}"
    )
    assert '"guess": "tails"' in page.inner_text(f"{PANEL} .oe-rv-action")
    page.click(f'{PANEL} svg.oe-stacked .oe-bar[data-step="0"]')  # the chart works too
    page.wait_for_selector(f'{PANEL}[data-selected="0"]')
    assert page.inner_text(f"{PANEL} table.oe-components caption").startswith("Step 1:")
    assert '"guess": "heads"' in page.inner_text(f"{PANEL} .oe-rv-action")
    act(page, "Heads", 5)  # the view stays on the picked step while the episode goes on
    assert page.get_attribute(PANEL, "data-selected") == "0"
    page.click(f"{PANEL} button[data-do='latest']")
    page.wait_for_selector(f'{PANEL}[data-selected="4"]')
    page.click(f'{PANEL} tr.oe-steprow[data-step="0"]')
    page.wait_for_selector(f'{PANEL}[data-selected="0"]')
    reset(page, 5)  # a new episode: the panel follows its latest step again
    act(page, "Tails", 1)
    act(page, "Tails", 2)
    assert page.get_attribute(PANEL, "data-selected") == "1"
    page.get_by_role("tab", name="README").click()  # the stage's step log leads back here
    page.click('#oe-stage .oe-log tr[data-step="0"]')
    page.wait_for_selector(f'{PANEL}[data-selected="0"]')
    assert page.locator(PANEL).is_visible()
    assert '"guess": "tails"' in page.inner_text(f"{PANEL} .oe-rv-action")
    clean(page)


def test_a_loaded_jsonl_shows_the_same_curve_as_the_live_run(page, coin_server):
    open_rewards(page, coin_server)
    page.set_input_files(
        f"{PANEL} input.oe-inspect-file",
        files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"hello\n"}],
    )
    error = page.wait_for_selector(f"{PANEL} .oe-rv-error")
    assert re.search(r"Could not inspect notes\.txt: line 1: not JSON", error.inner_text())
    assert page.get_attribute(PANEL, "data-source") == "live"
    reset(page, 7)
    for n, label in enumerate(["Heads", "Heads", "Tails", "Heads", "Tails", "Tails"], start=1):
        act(page, label, n)
    live_chart = page.inner_html(f"{PANEL} .oe-rv-chart")
    href = page.get_attribute("#oe-stage a.oe-dl[href$='episode.jsonl']", "href")
    body = httpx.get(f"{coin_server}/web/{href}").content
    page.set_input_files(
        f"{PANEL} input.oe-inspect-file",
        files=[{"name": "coin.jsonl", "mimeType": "application/x-ndjson", "buffer": body}],
    )
    page.wait_for_selector(f'{PANEL}[data-source="file coin.jsonl"]')
    assert page.inner_html(f"{PANEL} .oe-rv-chart") == live_chart
    page.click(f"{PANEL} button[data-do='live']")
    page.wait_for_selector(f'{PANEL}[data-source="live"]')
    clean(page)


def test_pinned_run_and_the_next_one_are_drawn_together(page, coin_server):
    open_rewards(page, coin_server)
    reset(page, 11)
    for n in range(1, 4):
        act(page, "Heads", n)
    page.click(f"{PANEL} button[data-do='pin']")
    page.wait_for_selector(f"{PANEL} button[data-do='unpin']")
    reset(page, 11)
    for n in range(1, 4):
        act(page, "Tails", n)
    runs = page.locator(f"{PANEL} svg.oe-compare polyline.oe-run")
    assert runs.count() == 2
    assert runs.nth(0).get_attribute("data-label") == "pinned run (seed 11)"
    assert runs.nth(1).get_attribute("data-label") == "this run (seed 11)"
    totals = page.inner_text(f"{PANEL} .oe-rv-totals")
    assert "pinned run (seed 11): return" in totals and "this run (seed 11): return" in totals
    clean(page)


def test_a_trainer_s_recording_opens_episode_by_episode(page, coin_server, tmp_path):
    from openenv.client import GenericEnvClient

    path = tmp_path / "run.jsonl"
    with GenericEnvClient(base_url=coin_server) as env, env.record(path):
        for seed, guesses in ((3, ["heads", "tails"]), (4, ["tails", "tails", "heads"])):
            env.reset(seed=seed)
            for guess in guesses:
                env.step({"guess": guess})
    open_rewards(page, coin_server)
    page.set_input_files(
        f"{PANEL} input.oe-inspect-file",
        files=[
            {"name": "run.jsonl", "mimeType": "application/x-ndjson", "buffer": path.read_bytes()}
        ],
    )
    page.wait_for_selector(f'{PANEL}[data-source="file run.jsonl, episode 1 of 2 (seed 3)"]')
    assert page.get_attribute(PANEL, "data-steps") == "2"
    assert set(table(page)) >= {"correct", "step_cost"}  # the rubric's parts, from the file
    page.click(f"{PANEL} button[data-do='episode-next']")
    page.wait_for_selector(f'{PANEL}[data-source="file run.jsonl, episode 2 of 2 (seed 4)"]')
    assert page.get_attribute(PANEL, "data-steps") == "3"
    assert page.locator(f"{PANEL} button[data-do='episode-next']").is_disabled()
    clean(page)
