"""BrowserGym in a real browser: the playground shows the live MiniWoB page, and a click on the
frame where the button is clicks the page there and earns the task's reward."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest

pytest.importorskip("browsergym.miniwob")

from PIL import Image

from tests.conftest import serve

pytestmark = pytest.mark.browser

FRAME = "#oe-stage img.oe-frame[data-click]"
BUTTON_FACE = (239, 239, 239)  # Chromium's default button colour, on click-test's white page


@pytest.fixture(scope="module")
def server():
    with serve(
        "browsergym_env.server.app:app",
        env={"BROWSERGYM_TASK_NAME": "click-test"},
        timeout=240,
    ) as url:
        yield url


def frame_pixels(page) -> np.ndarray:
    src = page.get_attribute(FRAME, "src")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB"))


def button_centre(pixels: np.ndarray) -> tuple[int, int]:
    """Where the frame shows click-test's button (its face colour), in frame pixels."""
    ys, xs = np.all(pixels == BUTTON_FACE, axis=2).nonzero()
    assert len(xs) > 100, "no button drawn in the frame"
    return int(np.median(xs)), int(np.median(ys))


def test_clicking_the_frame_on_the_button_solves_click_test(page, server):
    page.goto(server + "/web/")
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="0"]')
    frame = page.wait_for_selector(FRAME)
    pixels = frame_pixels(page)
    x, y = button_centre(pixels)
    box = frame.bounding_box()  # the page scales the frame: click where the button is drawn
    page.mouse.click(
        box["x"] + (x + 0.5) * box["width"] / pixels.shape[1],
        box["y"] + (y + 0.5) * box["height"] / pixels.shape[0],
    )
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="1"]')
    assert page.get_attribute("#oe-stage .oe-stage", "data-done") == "1"
    assert page.inner_text("#oe-stage .oe-return").strip() == "1"
    assert "click (" in page.inner_text("#oe-stage .oe-log")  # the step the click sent
