"""carla_env in a real browser: the top-down road of our kinematic simulator, the scenario's
question and the choices as buttons on the first screen; a visitor picks the classic 3-vs-1
deadzone under Reset options, swerves, and reads the outcome and its ethical metrics."""

from __future__ import annotations

import pytest
from stagewait import click_reset

from tests.conftest import unfold
from tests.servers import artifacts, serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
SVG = "#oe-stage .oe-view .oe-svg svg"


@pytest.fixture(scope="module")
def url():
    with serve("carla_env.server.app:app", timeout=180) as base:
        yield base


def test_a_visitor_swerves_in_the_classic_deadzone_and_reads_the_outcome(page, url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    page.wait_for_selector(f"{SVG} text:has-text('kinematic simulator (ours, not CARLA)')")
    assert "brake, swerve or do nothing" in page.inner_text("body")  # how_to_play, up front
    labels = [t.split("\n")[0].strip() for t in page.locator("#oe-stage .oe-act").all_inner_texts()]
    assert labels[:4] == ["👀 Observe", "🛑 Emergency stop", "Brake 50%", "⬅ Swerve left"]

    unfold(page, "oe-options", "#oe-opt-scenario_name")
    page.fill("#oe-opt-scenario_name :is(input, textarea)", "trolley_micro_classic_3v1_deadzone")
    click_reset(page)
    page.wait_for_selector(f"{SVG} text:has-text('Classic Trolley (3 vs 1) (deadzone)')")
    assert "Braking cannot stop in time." in page.inner_html("#oe-stage .oe-view")
    page.screenshot(path=str(artifacts() / "carla_1280x800_before.png"))

    page.click("#oe-stage .oe-act:not([disabled]):has-text('Swerve left')")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    page.wait_for_selector(f"{SVG} text:has-text('Outcome: collision')")
    view = page.inner_html("#oe-stage .oe-view")
    assert "reward 1.0" in view and "trolley_action: SWERVE_LEFT" in view
    assert "ethical_choice: utilitarian" in view and "actual_pedestrians_hit: 1" in view
    shot = artifacts() / "carla_1280x800.png"
    page.screenshot(path=str(shot))
    assert page.console_errors == []
    assert page.external_requests == []
