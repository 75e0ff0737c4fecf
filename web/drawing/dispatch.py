"""One dispatch for every way a view is drawn: HTML, an image (PNG), a thumbnail, text. The
playground's stage and exports, ``openenv render``, catalog thumbnails and notebooks all draw
through here.

Each view type of :mod:`openenv.core.views` has one :class:`Drawer` in :data:`DRAWERS`, which
holds one function per target; :func:`to_html`, :func:`to_image`, :func:`to_png`,
:func:`to_thumbnail` and :func:`to_text` look the view's drawer up and call it. A new view
type is drawn everywhere once it has a drawer here; nothing else asks what type a view is.
PNG files are written by one encoder, :func:`openenv.core.frames.png_bytes`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from PIL import Image

from openenv.core.frames import png_bytes
from openenv.core.views import Board, Frame, Svg, Text, View
from openenv.web.drawing import html, raster
from openenv.web.drawing.svg import sanitize_svg

THUMBNAIL_WIDTH = 480
MAX_TEXT_LINES = 14
MAX_TEXT_LINE = 160


@dataclass(frozen=True)
class Thumbnail:
    """What a catalog card shows: ``png`` bytes, ``svg`` markup, ``text``, or ``none`` with a
    note saying why."""

    kind: Literal["png", "svg", "text", "none"]
    data: bytes | str = b""
    note: str = ""

    def svg_data_url(self) -> str:
        assert self.kind == "svg" and isinstance(self.data, str)
        return "data:image/svg+xml;base64," + base64.b64encode(self.data.encode()).decode()


@dataclass(frozen=True, slots=True)
class Picture:
    """What an episode keeps of one drawn view: a frame as its PNG (its pixels are heavy, and
    the stage encoded them anyway), any other view as it is."""

    view: View | None = None
    png: bytes | None = None
    shape: tuple[int, int] = (0, 0)  # a frame's height and width
    click: bool = False  # the frame takes clicks, keys (Frame.click, Frame.keys)
    keys: bool = False

    def html(self) -> str:
        if self.png is not None:
            return html.png_html(self.png, self.shape, self.click, self.keys)
        return to_html(self.view)

    def to_png(self) -> bytes | None:
        return self.png if self.png is not None else to_png(self.view)

    @property
    def animates(self) -> bool:
        """Whether a GIF of these pictures shows something: every view does (frames, boards,
        SVG rasterised, text drawn), nothing does not."""
        return self.png is not None or self.view is not None


@dataclass(frozen=True)
class Drawer:
    """How one view type is drawn for each target."""

    html: Callable[[Any], str]
    image: Callable[[Any], Image.Image | None]  # None: cannot be drawn here (SVG without resvg)
    thumbnail: Callable[[Any], Thumbnail]
    text: Callable[[Any], str]
    keep: Callable[[Any], Picture] = lambda view: Picture(view=view)


def _frame_thumbnail(frame: Frame) -> Thumbnail:
    height, width = frame.shape
    if width <= THUMBNAIL_WIDTH:
        return Thumbnail("png", png_bytes(frame.pixels))
    image = raster.frame_image(frame).resize(
        (THUMBNAIL_WIDTH, max(1, height * THUMBNAIL_WIDTH // width)), Image.Resampling.LANCZOS
    )
    return Thumbnail("png", png_bytes(np.asarray(image)))


def _board_thumbnail(board: Board) -> Thumbnail:
    _, cols = board.shape
    cell = max(8, min(96, THUMBNAIL_WIDTH // max(cols, 1)))
    return Thumbnail("png", png_bytes(np.asarray(raster.board_image(board, cell))))


def _text_thumbnail(text: Text) -> Thumbnail:
    lines = text.text.splitlines()[:MAX_TEXT_LINES]
    # The card wraps long lines; a line longer than a few wrapped rows is cut.
    return Thumbnail("text", "\n".join(line[:MAX_TEXT_LINE] for line in lines))


def _frame_text(frame: Frame) -> str:
    height, width = frame.shape
    return f"environment frame {width}×{height}"


DRAWERS: dict[type, Drawer] = {
    Frame: Drawer(
        html=html.frame_html,
        image=raster.frame_image,
        thumbnail=_frame_thumbnail,
        text=_frame_text,
        keep=lambda frame: Picture(
            png=png_bytes(frame.pixels),
            shape=frame.shape,
            click=frame.click is not None,
            keys=frame.keys is not None,
        ),
    ),
    Board: Drawer(
        html=html.board_html,
        image=raster.board_image,
        thumbnail=_board_thumbnail,
        text=Board.to_text,
    ),
    Text: Drawer(
        html=html.text_html,
        image=lambda view: raster.text_image(view.text),
        thumbnail=_text_thumbnail,
        text=lambda view: view.text,
    ),
    Svg: Drawer(
        html=html.svg_html,
        image=lambda view: raster.svg_image(view.markup),
        thumbnail=lambda view: Thumbnail("svg", sanitize_svg(view.markup)),
        text=lambda view: "an SVG drawing",
    ),
}

NO_VIEW = Thumbnail("none", note="no preview: this environment does not render")


def drawer(view: View) -> Drawer:
    """The drawer of ``view``'s type; ``TypeError`` for something that is not a view."""
    found = DRAWERS.get(type(view))
    if found is None:
        raise TypeError(
            f"{type(view).__name__} is not a view: render() returns a Frame, Board, Text, Svg "
            "or None"
        )
    return found


def to_html(view: View | None, observation: dict[str, Any] | None = None) -> str:
    """HTML for the stage; without a view, the observation's fields, legibly."""
    if view is None:
        return html.observation_html(observation or {})
    return drawer(view).html(view)


def to_image(
    view: View | None, cell_px: int = raster.CELL_PX, observation: dict[str, Any] | None = None
) -> Image.Image | None:
    """An RGB image of the view (an SVG is ``None`` only where resvg is not installed); without
    a view, the ``observation``'s fields as text, as the stage lists them (``None`` without
    one)."""
    if view is None:
        text = fields_text(observation or {})
        return raster.text_image(text) if text else None
    if isinstance(view, Board):  # the only view with a drawing scale
        return raster.board_image(view, cell_px)
    return drawer(view).image(view)


def to_png(view: View | None, cell_px: int = raster.CELL_PX) -> bytes | None:
    """PNG bytes of the view (see :func:`to_image`); frames are encoded without a detour."""
    if isinstance(view, Frame):
        return png_bytes(view.pixels)
    image = to_image(view, cell_px)
    return None if image is None else png_bytes(np.asarray(image.convert("RGB")))


def to_thumbnail(view: View | None) -> Thumbnail:
    """What a catalog card shows for the view."""
    return NO_VIEW if view is None else drawer(view).thumbnail(view)


def picture(view: View) -> Picture:
    """What an episode keeps of ``view`` (see :class:`Picture`)."""
    return drawer(view).keep(view)


def fields_text(observation: dict[str, Any]) -> str:
    """The observation's fields, one ``name: value`` a line (large arrays and frames folded as
    on the stage; reward, done and empty metadata left out)."""
    fields = {k: v for k, v in observation.items() if k not in ("reward", "done")}
    if not fields.get("metadata"):
        fields.pop("metadata", None)
    lines = []
    for name, value in fields.items():
        folded = html.fold(value)
        text = folded if isinstance(folded, str) else json.dumps(folded, ensure_ascii=False)
        lines.append(f"{name}: {text}")
    return "\n".join(lines)


def to_text(view: View | None) -> str:
    """The view in words or characters (a board's glyphs, a text's lines, a frame's size)."""
    return "" if view is None else drawer(view).text(view)
