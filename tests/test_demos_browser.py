"""Human demonstrations played by hand in Chromium: a grid world server with demo collection
on; the visitor sees it is on, plays three episodes with the arrow buttons, leaves the second
out and marks the third with a note; the operator's exported dataset holds exactly the first
and the third, as ``datasets`` loads them."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import serve
from stagewait import click_reset

STAGE = "#oe-stage .oe-stage"
FIRST = ["Down"] * 4 + ["Right"] * 4
SECOND = ["Right"] * 4 + ["Down"] * 4  # left out
THIRD = ["Down", "Right"] * 4
NAMES = {"Down": "DOWN", "Right": "RIGHT"}


@pytest.fixture(scope="module")
def demo_server() -> Iterator[str]:
    with serve("grid_world_env.server.app:app", env={"OPENENV_DEMOS": "1"}) as url:
        yield url


def play(page, moves: list[str]) -> None:
    for n, move in enumerate(moves, start=1):
        page.click(f"#oe-stage .oe-act:not([disabled]):has-text('{move}')")
        page.wait_for_selector(f'{STAGE}[data-steps="{n}"]')
    page.wait_for_selector(f'{STAGE}[data-done="1"]')
    assert "The episode is over" in page.inner_text("#oe-stage .oe-msg")


def reset(page) -> None:
    click_reset(page)
    page.wait_for_selector(f'{STAGE}[data-steps="0"][data-done="0"]')


def test_three_episodes_by_hand_one_left_out_two_in_the_dataset(
    page, demo_server: str, tmp_path: Path
) -> None:
    import datasets

    page.goto(demo_server + "/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    notice = page.inner_text("#oe-stage .oe-demo")
    assert "Demo collection is on" in notice and "Don't keep this episode" in notice
    assert page.is_visible("#oe-stage .oe-demo-mark")

    play(page, FIRST)
    assert "kept" in page.inner_text("#oe-stage .oe-demo-state")

    reset(page)
    page.click('#oe-stage button.oe-demo-skip:has-text("Don\'t keep this episode")')
    page.wait_for_selector('#oe-stage .oe-demo[data-keep="0"]')
    play(page, SECOND)
    assert "will not be kept" in page.inner_text("#oe-stage .oe-demo-state")

    reset(page)
    # a new episode is kept again
    assert "Don't keep this episode" in page.inner_text("#oe-stage button.oe-demo-skip")
    play(page, THIRD)
    page.fill("#oe-stage input.oe-demo-note", "the zigzag earns the same as the straight walk")
    page.click("#oe-stage button.oe-demo-mark")
    page.wait_for_selector('#oe-stage .oe-demo[data-marked="1"]')
    assert "🚩 marked: the zigzag" in page.inner_text("#oe-stage .oe-demo-state")

    archive = httpx.get(f"{demo_server}/web/demos/dataset.zip", timeout=120)
    assert archive.status_code == 200
    zipfile.ZipFile(io.BytesIO(archive.content)).extractall(tmp_path / "ds")
    ds = datasets.load_dataset(str(tmp_path / "ds"), split="train", cache_dir=str(tmp_path / "c"))
    walks = [[s["arguments"]["action"] for s in json.loads(t)] for t in ds["tool_trace"]]
    assert walks == [[NAMES[m] for m in FIRST], [NAMES[m] for m in THIRD]]
    assert ds["marked"] == [False, True]
    assert ds["note"] == ["", "the zigzag earns the same as the straight walk"]
    assert set(ds["source"]) == {"demo"} and set(ds["env"]) == {"grid_world"}
    assert ds["done"] == [True, True] and ds["reward"] == [1.0, 1.0]
    assert page.console_errors == []
