"""The playground's frame: the page's screenshot with the goal (and the last error) written
in a band *below* it.

Below, not above: a click on the frame steps ``mouse_click(x, y)`` with the frame's pixel
coordinates, and those are the screenshot's own (BrowserGym maps screenshot pixels to page
coordinates by its zoom factor), so the page keeps its coordinates. A click on the band lands
below the page's viewport, where nothing is.
"""

from __future__ import annotations

import functools
import textwrap

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_PX = 14
LINE_PX = 18
PAD_PX = 6
MAX_LINES = 6
INK = (17, 24, 39)
ERROR_INK = (185, 28, 28)
PAPER = (243, 244, 246)


@functools.cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=FONT_PX)


def with_banner(pixels: np.ndarray, goal: str, error: str = "") -> np.ndarray:
    """``pixels`` (H×W×3) with a band under it saying the goal and, in red, the error."""
    width = pixels.shape[1]
    chars = max(20, width // (FONT_PX * 0.55))
    lines = [(line, INK) for line in textwrap.wrap(f"Goal: {goal}", int(chars))]
    if error:
        lines += [(line, ERROR_INK) for line in textwrap.wrap(f"Error: {error}", int(chars))]
    lines = lines[:MAX_LINES]
    band = Image.new("RGB", (width, 2 * PAD_PX + LINE_PX * max(1, len(lines))), PAPER)
    draw = ImageDraw.Draw(band)
    for i, (line, ink) in enumerate(lines):
        draw.text((PAD_PX, PAD_PX + i * LINE_PX), line, fill=ink, font=_font())
    return np.concatenate([pixels, np.asarray(band, dtype=np.uint8)], axis=0)
