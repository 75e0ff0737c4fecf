"""SUMO in a real browser: the network is drawn as SVG, a phase button steps the simulation and
the drawing follows (time, vehicles, then the signal heads once the light has switched)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import serve

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        any(importlib.util.find_spec(name) is None for name in ("sumo", "traci", "sumo_rl")),
        reason="sumo_rl_env needs its extra (eclipse-sumo, sumo-rl)",
    ),
]

VIEW = "#oe-stage .oe-view"
SVG = f"{VIEW} .oe-svg svg"


@pytest.fixture(scope="module")
def url():
    with serve("sumo_rl_env.server.app:app", timeout=180) as base:
        yield base


def press(page, label: str, steps: int) -> None:
    """Press the phase button ``label``; wait until the playground counts ``steps`` steps."""
    page.click(f"#oe-stage .oe-act:not([disabled]):has-text('{label}')")
    page.wait_for_selector(f'#oe-stage .oe-stage[data-steps="{steps}"]')


def test_a_phase_button_steps_the_simulation_and_the_svg_follows(page, url):
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/web/")
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="0"]')
    page.wait_for_selector(SVG)
    labels = page.locator("#oe-stage .oe-act").all_inner_texts()
    assert [label.split("\n")[0].strip() for label in labels] == ["N-S green", "E-W green"]
    before = page.inner_html(VIEW)
    assert "traffic light t: GGrr" in before and "t = 0 s" in before
    press(page, "E-W green", 1)
    page.wait_for_selector(f"{SVG} text:has-text('t = 5 s')")
    assert page.inner_html(VIEW) != before
    # min_green (2 s yellow + 5 s green) holds the request until t = 10; then it switches.
    press(page, "E-W green", 2)
    press(page, "E-W green", 3)
    page.wait_for_selector(f"{SVG} text:has-text('E-W green')")
    assert "traffic light t: rrGG" in page.inner_html(VIEW)
    assert page.console_errors == []
    assert page.external_requests == []
