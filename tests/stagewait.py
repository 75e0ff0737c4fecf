"""Browser tests' wait for the playground's own Reset: its answer redraws the board (and clears
a picked piece's highlights), so a test acts only once that answer is drawn, never on the stage
drawn before it (which can look the same: steps 0, the same buttons)."""

from __future__ import annotations

VERSION_JS = "() => Number(document.querySelector('#oe-stage .oe-stage')?.dataset.version ?? -1)"


def stage_version(page) -> int:
    """The ``data-version`` of the stage drawn now (-1 before the first)."""
    return page.evaluate(VERSION_JS)


def click_reset(page, selector: str = "#oe-reset") -> None:
    """Click Reset (or ``selector``) and wait until a newer stage than the one shown is drawn.
    The first stage (the page's load) is waited for first, so it is not taken for the answer."""
    page.wait_for_selector("#oe-stage .oe-stage[data-tab][data-version]")
    before = stage_version(page)
    page.click(selector)
    page.wait_for_function(f"(before) => ({VERSION_JS})() > before", arg=before)
