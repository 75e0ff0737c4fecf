"""Thumbnails for the catalog: the first render of a fresh episode (seed 0) as a picture.

Frames and Boards become PNG (Boards through ``openenv.web.drawing.raster``, the playground's
rasteriser); Svg stays SVG; Text stays a text snippet.
"""

from __future__ import annotations

import asyncio
import base64
import io
import logging
from dataclasses import dataclass
from typing import Any, Literal

from PIL import Image

from openenv.core.views import Board, Frame, Svg, Text
from openenv.web.drawing.raster import view_to_png

log = logging.getLogger("openenv.web.catalog.app")

TARGET_WIDTH = 480
MAX_TEXT_LINES = 14
MAX_TEXT_LINE = 160


@dataclass(frozen=True)
class Thumbnail:
    """What a card shows: ``png`` bytes, ``svg`` markup, ``text``, or ``none`` with a note."""

    kind: Literal["png", "svg", "text", "none"]
    data: bytes | str = b""
    note: str = ""

    def svg_data_url(self) -> str:
        assert self.kind == "svg" and isinstance(self.data, str)
        return "data:image/svg+xml;base64," + base64.b64encode(self.data.encode()).decode()


async def first_render(env_factory: Any) -> Thumbnail:
    """Reset a fresh environment with seed 0 in a worker thread and picture its view."""
    return await asyncio.to_thread(_first_render_blocking, env_factory)


def _first_render_blocking(env_factory: Any) -> Thumbnail:
    env = env_factory()
    try:
        asyncio.run(env.reset_async(seed=0))
        view = env.render()
    except Exception as exc:  # a broken env must not take the landing page down: log, show it
        log.exception("preview of %r failed", env_factory)
        return Thumbnail("none", note=f"preview failed: {exc}")
    finally:
        env.close()
    return view_thumbnail(view)


def view_thumbnail(view: Any) -> Thumbnail:
    """Turn a view (Frame, Board, Svg, Text or None) into a thumbnail."""
    if isinstance(view, Frame):
        return Thumbnail("png", _frame_png(view))
    if isinstance(view, Board):
        return Thumbnail("png", board_png(view))
    if isinstance(view, Svg):
        return Thumbnail("svg", view.markup)
    if isinstance(view, Text):
        lines = view.text.splitlines()[:MAX_TEXT_LINES]
        # The card wraps long lines; a line longer than a few wrapped rows is cut.
        return Thumbnail("text", "\n".join(line[:MAX_TEXT_LINE] for line in lines))
    return Thumbnail("none", note="no preview: this environment does not render")


def _frame_png(frame: Frame) -> bytes:
    height, width = frame.shape
    if width <= TARGET_WIDTH:
        return frame.to_png()
    image = Image.fromarray(frame.pixels, "RGB")
    image = image.resize((TARGET_WIDTH, max(1, height * TARGET_WIDTH // width)), Image.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def board_png(board: Board, target_width: int = TARGET_WIDTH) -> bytes:
    """Rasterise a Board (with the playground's rasteriser) at about ``target_width`` pixels."""
    _, cols = board.shape
    png = view_to_png(board, cell_px=max(8, min(96, target_width // max(cols, 1))))
    assert png is not None
    return png
