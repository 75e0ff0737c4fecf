"""Sliders in a real browser: Pendulum's torque is set with a slider and stepped with the
button or Enter, autoplay holds it or plays random torques, and the fast shell steps it too."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="the gymnasium extra is not installed")

from tests.conftest import serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage"
SLIDER = f"{STAGE} .oe-sliders input[type=range]"
BUNDLE = "**/assets/index-*.js"  # Gradio's entry module (held back to test the fast shell)


@pytest.fixture(scope="module")
def pendulum():
    with serve("gymnasium_env.server.app:app", env={"GYM_ENV_ID": "Pendulum-v1"}) as url:
        yield url


def logged_actions(page, root: str = STAGE) -> list[str]:
    """The step log's action column, latest first."""
    return page.locator(f"{root} .oe-log tr.oe-logrow td:nth-child(2)").all_inner_texts()


def wait_steps(page, n: int, root: str = STAGE) -> None:
    page.wait_for_selector(f'{root} .oe-stage[data-tab][data-steps="{n}"]', timeout=30_000)


def test_the_torque_slider_steps_pendulum_and_autoplay_holds_it(page, pendulum):
    page.goto(pendulum + "/web/")
    page.wait_for_selector(f"{SLIDER}:not([disabled])")
    assert page.locator(f"{STAGE} .oe-slider span").all_inner_texts() == ["torque"]
    assert page.locator(f"{STAGE} button.oe-act").count() == 0  # a Box space has no buttons
    slider = page.locator(SLIDER)
    assert (slider.get_attribute("min"), slider.get_attribute("max")) == ("-2", "2")

    slider.fill("1.5")
    assert page.inner_text(f"{STAGE} .oe-slider output") == "1.5"  # follows while dragging
    page.click(f"{STAGE} button.oe-slide")
    wait_steps(page, 1)
    assert logged_actions(page) == ["[1.5]"]
    assert page.locator(SLIDER).input_value() == "1.5"  # drawn again where it was left

    page.locator(SLIDER).focus()
    page.keyboard.press("ArrowLeft")  # the browser moves a focused slider by one step
    page.keyboard.press("Enter")
    wait_steps(page, 2)
    assert logged_actions(page)[0] == "[1.49]"

    page.click(f"{STAGE} button.oe-slide-start")
    assert page.locator(SLIDER).input_value() == "0"

    # "hold during autoplay": every autoplayed step sends the slider's value.
    page.check(f"{STAGE} .oe-hold-box")
    page.locator(SLIDER).fill("-1")
    page.evaluate("() => window.openenvPlayground.play(5, 30)")
    wait_steps(page, 7)
    page.wait_for_function("() => !window.openenvPlayground.isPlaying()")
    assert logged_actions(page)[:5] == ["[-1.0]"] * 5
    assert page.is_checked(f"{STAGE} .oe-hold-box")  # still ticked after the stage is redrawn

    # Without it, autoplay plays random torques inside the slider's range.
    page.uncheck(f"{STAGE} .oe-hold-box")
    page.evaluate("() => window.openenvPlayground.play(8, 30)")
    wait_steps(page, 15)
    page.wait_for_function("() => !window.openenvPlayground.isPlaying()")
    torques = [float(a.strip("[]")) for a in logged_actions(page)[:8]]
    assert len(set(torques)) > 4 and all(-2 <= t <= 2 for t in torques)
    assert page.console_errors == [] and page.external_requests == []


def test_the_fast_shell_steps_with_the_sliders_before_gradio_loads(page, pendulum):
    held = []
    page.route(BUNDLE, lambda route: held.append(route))
    page.goto(pendulum + "/web/", wait_until="commit")
    page.click("#oe-shell .oe-shell-reset")
    shell_slider = "#oe-shell .oe-sliders input[type=range]"
    page.wait_for_selector(f"{shell_slider}:not([disabled])")
    page.locator(shell_slider).fill("0.75")
    page.click("#oe-shell button.oe-slide")
    wait_steps(page, 1, "#oe-shell")
    assert logged_actions(page, "#oe-shell") == ["[0.75]"]
    for _ in range(300):  # the page asked for the bundle long ago; be sure it is held
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page never asked for Gradio's bundle"
    for route in held:
        route.continue_()
    page.unroute(BUNDLE)
    wait_steps(page, 1)  # Gradio's page carries the episode on, sliders included
    assert page.locator(SLIDER).input_value() == "0.75"
    assert page.console_errors == [] and page.external_requests == []
