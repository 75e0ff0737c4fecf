"""Jupyter in a real browser: a cell executed from the playground draws its output (text, then
a matplotlib image) in the notebook view."""

from __future__ import annotations

import pytest

from tests.conftest import serve

pytest.importorskip("jupyter_client")

pytestmark = pytest.mark.browser

VIEW = "#oe-stage .oe-view"
NOTEBOOK = f"{VIEW} .oe-svg svg"


@pytest.fixture(scope="module")
def playground():
    with serve("jupyter_env.server.app:app", timeout=180) as url:
        yield url


def steps(page, n: int) -> None:
    page.wait_for_selector(f'#oe-stage .oe-stage[data-steps="{n}"]')


def test_a_cell_run_from_the_playground_shows_its_output(page, playground) -> None:
    page.set_default_timeout(90_000)  # a kernel starts on the first cell of a busy machine
    page.goto(playground + "/web/")
    steps(page, 0)
    page.wait_for_selector(NOTEBOOK)
    assert "No cell executed yet" in page.inner_text(VIEW)
    page.click("#oe-stage .oe-act:has-text('x = 21 * 2')")
    steps(page, 1)
    page.wait_for_selector(f"{NOTEBOOK} text:has-text('In [1]:')")
    assert "42" in page.locator(f"{NOTEBOOK} text").all_text_contents()
    page.click("#oe-stage .oe-act:has-text('plot a sine wave')")
    steps(page, 2)
    image = page.wait_for_selector(f"{NOTEBOOK} image")
    assert (image.get_attribute("href") or "").startswith("data:image/png;base64,")
    assert page.console_errors == []
    assert page.external_requests == []
