"""Clicks and keys in a real browser: a click on a frame steps its action at the pixel under
the pointer, keys typed on the focused frame go to the environment (the focus survives each
redraw), and a board's squares are buttons."""

from __future__ import annotations

import pytest

from tests.conftest import serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage"
FRAME = f"{STAGE} img.oe-frame[data-click]"


@pytest.fixture(scope="module")
def canvas():
    with serve("tests.pointer_apps:canvas") as url:
        yield url


@pytest.fixture(scope="module")
def squares():
    with serve("tests.pointer_apps:squares") as url:
        yield url


def wait_steps(page, n: int) -> None:
    page.wait_for_selector(f'{STAGE} .oe-stage[data-tab][data-steps="{n}"]')


def logged_actions(page) -> list[str]:
    """The step log's action column, latest first."""
    return page.locator(f"{STAGE} .oe-log tr.oe-logrow td:nth-child(2)").all_inner_texts()


def click_pixel(page, x: int, y: int) -> None:
    """Click the middle of the frame's pixel (x, y), wherever CSS put and scaled it."""
    frame = page.locator(FRAME)
    box = frame.bounding_box()
    width, height = frame.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    scale = min(box["width"] / width, box["height"] / height)
    left = (box["width"] - width * scale) / 2
    top = (box["height"] - height * scale) / 2
    frame.click(position={"x": left + (x + 0.5) * scale, "y": top + (y + 0.5) * scale})


def test_clicking_the_frame_acts_at_that_pixel_and_typing_sends_keys(page, canvas):
    page.goto(canvas + "/web/")
    page.wait_for_selector(FRAME)
    click_pixel(page, 2, 3)  # outside the red square: no reward
    wait_steps(page, 1)
    click_pixel(page, 29, 14)  # inside it
    wait_steps(page, 2)
    assert page.inner_text(f"{STAGE} .oe-return") == "1"
    assert logged_actions(page)[:2] == ["click (29, 14)", "click (2, 3)"]

    page.locator(FRAME).focus()
    page.keyboard.type("ok")  # the second key is typed after the first answer's redraw
    wait_steps(page, 4)
    assert logged_actions(page)[:2] == ["key k", "key o"]
    assert page.evaluate("document.activeElement.matches('img.oe-frame[data-keys]')")
    page.keyboard.press("Tab")  # Tab still leaves the frame, and sends nothing
    assert not page.evaluate("document.activeElement.matches('img.oe-frame')")
    assert page.locator(f"{STAGE} .oe-stage").get_attribute("data-steps") == "4"
    assert page.console_errors == []


def test_clicking_a_square_of_the_board_steps_its_action(page, squares):
    page.goto(squares + "/web/")
    page.wait_for_selector(f"{STAGE} button.oe-cell-act")
    assert page.locator(f"{STAGE} button.oe-cell-act").count() == 9
    page.click(f'{STAGE} button.oe-cell-act[data-r="1"][data-c="1"]')
    wait_steps(page, 1)
    assert page.inner_text(f"{STAGE} .oe-return") == "1"
    assert page.locator(f"{STAGE} button.oe-cell-act").count() == 8
    assert logged_actions(page)[0] == "mark 1 1"
    page.click(f'{STAGE} button.oe-cell-act[data-r="0"][data-c="2"]')
    wait_steps(page, 2)
    assert page.console_errors == []
