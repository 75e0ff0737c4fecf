"""The Helium browser env in a real browser: the playground shows the page's screenshot with the
goal under it and a box for the next Helium call; a visitor types the calls that fill the shop's
cart and check out, and the episode ends with reward 1; a refused call is said on the frame."""

from __future__ import annotations

import base64
import io
import os
import random

import numpy as np
import pytest
from stagewait import click_reset

pytest.importorskip("helium")
if not os.path.isfile("/usr/bin/chromedriver"):
    pytest.skip("Debian's chromium-driver is not installed", allow_module_level=True)

from helium_browser_env.server.tasks import TASKS
from PIL import Image

from tests.conftest import serve, unfold
from tests.servers import artifacts

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
FRAME = "#oe-stage img.oe-frame"
BOX = "#oe-stage form.oe-typed input[data-field='command']"
SEND = "#oe-stage form.oe-typed button.oe-typed-send"
SEED = 6


@pytest.fixture(scope="module")
def url():
    with serve(
        "helium_browser_env.server.app:app", env={"HELIUM_TASK": "cart"}, timeout=240
    ) as base:
        yield base


def frame_pixels(page) -> np.ndarray:
    src = page.get_attribute(FRAME, "src")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB"))


def send(page, command: str, steps: int) -> None:
    page.fill(BOX, command)
    page.click(SEND)
    page.wait_for_selector(f'{STAGE}[data-steps="{steps}"]')


def test_a_visitor_fills_the_cart_and_checks_out(page, url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(120_000)  # a browser starts per session on a busy 2-core runner
    page.goto(url + "/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    assert 'click("Sign in")' in page.inner_text("body")  # how to play, up front
    page.wait_for_selector(BOX)  # the action box is on the stage, under the page
    unfold(page, "oe-options", "#oe-seed")
    page.fill("#oe-seed input, #oe-seed textarea", str(SEED))
    click_reset(page)
    episode = TASKS["cart"](random.Random(SEED))  # what the seed asks for, as the env draws it
    assert episode.goal.startswith("Buy exactly ")
    first = frame_pixels(page)
    assert first.shape[1] == 960 and first.shape[0] > 600  # the page, and the goal under it
    assert first[:600].std() > 0  # the shop is drawn, not a blank frame

    send(page, "go_to('https://example.com/')", 1)
    assert not np.array_equal(frame_pixels(page)[600:], first[600:])  # the error is written
    for step, command in enumerate(episode.solution, start=2):
        send(page, command, step)
    stage = page.locator(STAGE)
    assert stage.get_attribute("data-done") == "1"
    assert page.inner_text("#oe-stage .oe-return").strip() == "1"
    assert "Check out" in page.inner_text("#oe-stage .oe-log")
    page.screenshot(path=str(artifacts() / "helium_browser_1280x800.png"))
    assert page.console_errors == []
    assert page.external_requests == []
