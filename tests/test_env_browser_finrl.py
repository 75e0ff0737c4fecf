"""FinRL in a real browser: a stock's slider buys it, the Sell all button sells it, and each step
redraws the chart (the holdings in its legend, the portfolio line); autoplay trades on."""

from __future__ import annotations

import pytest

from tests.conftest import serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage"
SLIDER = f"{STAGE} .oe-sliders input[type=range]"
CHART = f"{STAGE} .oe-svg svg"


@pytest.fixture(scope="module")
def finrl():
    with serve("finrl_env.server.app:app", timeout=240) as url:
        yield url


def wait_steps(page, n: int) -> None:
    page.wait_for_selector(f'{STAGE} .oe-stage[data-tab][data-steps="{n}"]')


def held(page, ticker: str) -> int:
    """The shares of ``ticker`` the chart's legend says are held ("price · held" under it)."""
    texts = page.locator(f"{CHART} text").all_text_contents()
    return int(texts[texts.index(ticker) + 1].split("·")[1])


def test_a_slider_buys_a_button_sells_and_the_chart_follows(page, finrl):
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core machine
    page.goto(finrl + "/web/")
    page.wait_for_selector(f"{SLIDER}:not([disabled])")
    wait_steps(page, 0)
    assert page.locator(f"{STAGE} .oe-slider span").all_inner_texts() == ["ACME", "BOLT", "CRUX"]
    assert held(page, "ACME") == 0
    first = page.inner_html(CHART)

    page.locator(SLIDER).nth(0).fill("0.5")
    page.click(f"{STAGE} button.oe-slide")
    wait_steps(page, 1)
    assert held(page, "ACME") == 50  # int(0.5 * hmax=100) shares
    bought = page.inner_html(CHART)
    assert bought != first and "day 2 of 252" in bought

    page.click(f"{STAGE} button.oe-act:has-text('Sell all')")
    wait_steps(page, 2)
    assert held(page, "ACME") == 0 and "day 3 of 252" in page.inner_html(CHART)

    page.evaluate("() => window.openenvPlayground.play(5, 30)")
    wait_steps(page, 7)
    page.wait_for_function("() => !window.openenvPlayground.isPlaying()")
    assert "day 8 of 252" in page.inner_html(CHART)
    assert page.console_errors == [] and page.external_requests == []
