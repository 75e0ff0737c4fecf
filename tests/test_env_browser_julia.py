"""Julia in a real browser, on a server without Julia (none installs from the registries here):
the first screen says so above the task, and code sent from the stage is not run, with why."""

from __future__ import annotations

import pytest

from tests.servers import artifacts, serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-stage form.oe-typed textarea[data-field='core_code']"


@pytest.fixture(scope="module")
def url():
    from julia_env.server.runtime import find_julia

    if find_julia():
        pytest.skip("a Julia binary is installed here: this test describes a server without one")
    with serve("julia_env.server.app:app", timeout=240) as base:
        yield base


def test_the_first_screen_says_julia_is_missing_and_code_is_not_run(page, url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(url + "/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    stage = page.inner_text("#oe-stage")
    assert "JULIA IS NOT INSTALLED ON THIS SERVER" in stage and "TESTS" in stage
    page.screenshot(path=str(artifacts() / "julia_1280x800.png"))
    page.fill(BOX, "f(x) = x + 1")
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="1"]')
    assert "Not run, and not counted: Julia is not installed" in page.inner_text("#oe-stage")
    assert page.console_errors == []
    assert page.external_requests == []
