"""The stage's frame: the page's screenshot with the goal (and the last error) written in a
band below it, so a visitor reads the task and what went wrong beside the page."""

from __future__ import annotations

import functools
import textwrap

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_PX = 22  # the stage shows the frame at about 0.6x: still readable there
LINE_PX = 28
PAD_PX = 10
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # Debian's fonts-dejavu-core
MAX_LINES = 5
INK = (17, 24, 39)
ERROR_INK = (185, 28, 28)
PAPER = (226, 232, 240)


@functools.cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype(FONT, FONT_PX)
    except OSError:  # no DejaVu: Pillow's own font (ASCII is enough for the goals)
        return ImageFont.load_default(size=FONT_PX)


def with_banner(pixels: np.ndarray, goal: str, error: str = "") -> np.ndarray:
    """``pixels`` (H×W×3) with a band under it saying the goal and, in red, the error."""
    width = pixels.shape[1]
    chars = int(max(20, width // (FONT_PX * 0.56)))
    lines = [(line, INK) for line in textwrap.wrap(f"Goal: {goal}", chars)]
    if error:
        lines += [(line, ERROR_INK) for line in textwrap.wrap(f"Error: {error}", chars)]
    lines = lines[:MAX_LINES]
    band = Image.new("RGB", (width, 2 * PAD_PX + LINE_PX * max(1, len(lines))), PAPER)
    draw = ImageDraw.Draw(band)
    for i, (line, ink) in enumerate(lines):
        draw.text((PAD_PX, PAD_PX + i * LINE_PX), line, fill=ink, font=_font())
    return np.concatenate([pixels, np.asarray(band, dtype=np.uint8)], axis=0)
