"""Pelican SVG in a real browser: the task and the box are on the first screen; a drawing
typed there is scored, drawn sanitised beside its scorecard; a cheat fails the gate."""

from __future__ import annotations

import pytest
from pelican_svg_env.server.drawing import reference_svg
from pelican_svg_env.server.tasks import TASKS

from tests.servers import artifacts, catalog_serving

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-stage form.oe-typed textarea[data-field='svg']"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog app serving only this env: one server process for the module."""
    with catalog_serving(tmp_path_factory.mktemp("pelican_svg"), ["pelican_svg_env"]) as url:
        yield url


def open_playground(page, url: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/envs/pelican_svg/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')


def send(page, svg: str) -> None:
    page.fill(BOX, svg)
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')


def test_a_drawing_typed_on_the_stage_is_scored_and_drawn(page, catalog):
    open_playground(page, catalog)
    stage = page.inner_text("#oe-stage")
    assert "Draw a " in stage and "riding a " in stage
    assert "1. gate: catches cheats" in stage and "2. geometry:" in stage
    page.wait_for_selector(BOX)  # the box is on the first screen, not in a folded panel
    prompt = stage.split("Draw ", 1)[1].split("\n", 1)[0]
    task = next(t for t in TASKS if t.prompt == prompt)
    send(page, reference_svg(task))
    stage = page.inner_text("#oe-stage")
    assert "✓ vector shapes only" in stage and "✓ wheels:" in stage
    assert "– not judged: no language model" in stage
    assert "Reward 1.00" in stage
    assert page.locator("#oe-stage .oe-svg svg svg circle").count() >= 2  # the drawing itself
    page.screenshot(path=str(artifacts() / "pelican_svg_1280x800.png"))
    assert page.console_errors == []
    assert page.external_requests == []


def test_a_cheat_fails_the_gate_and_its_script_never_reaches_the_page(page, catalog):
    open_playground(page, catalog)
    cheat = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><script>window.pwned=1'
        '</script><text x="1" y="5">pelican</text><circle r="3" onload="window.pwned=2"/></svg>'
    )
    send(page, cheat)
    stage = " ".join(page.inner_text("#oe-stage").split())  # the scorecard wraps long lines
    assert "✗ script: <script>, <circle onload>" in stage and "nothing to draw" in stage
    assert "✗ text: <text>" in stage
    assert "Reward 0.00" in stage
    assert page.evaluate("window.pwned === undefined")
    assert page.locator("#oe-stage script").count() == 0
    assert page.console_errors == []
