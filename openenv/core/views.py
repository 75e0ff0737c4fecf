"""What an environment draws, as plain data. The web layer decides how to paint it.

``Environment.render()`` returns one of these views (or ``None``). The same view feeds the
playground, a GIF export, or a notebook's ``_repr_png_``; environments never return HTML.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Frame:
    """An RGB image: ``pixels`` is an H×W×3 ``uint8`` array (H×W grayscale is promoted)."""

    pixels: np.ndarray

    def __post_init__(self) -> None:
        pixels = np.asarray(self.pixels)
        if pixels.ndim == 2:
            pixels = np.repeat(pixels[:, :, None], 3, axis=2)
        if pixels.ndim != 3 or pixels.shape[2] != 3:
            raise ValueError(f"Frame needs an HxWx3 array, got shape {pixels.shape}")
        if pixels.dtype != np.uint8:
            raise ValueError(f"Frame needs uint8 pixels, got {pixels.dtype}; use .astype(np.uint8)")
        object.__setattr__(self, "pixels", pixels)

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.pixels.shape[0]), int(self.pixels.shape[1])

    def to_png(self) -> bytes:
        from openenv.core.frames import png_bytes  # fast unfiltered encoder (autoplay speed)

        return png_bytes(self.pixels)

    def _repr_png_(self) -> bytes:
        return self.to_png()


@dataclass(frozen=True)
class Cell:
    """One square of a Board: a glyph (a character or short text) and CSS colours."""

    glyph: str = ""
    color: str | None = None
    background: str | None = None
    label: str | None = None


@dataclass(frozen=True)
class Board:
    """A grid of cells, row by row from the top. ``legend`` explains the glyphs."""

    rows: list[list[Cell]]
    legend: dict[str, str] = field(default_factory=dict)
    caption: str = ""

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), max((len(row) for row in self.rows), default=0)

    def to_text(self) -> str:
        return "\n".join("".join(cell.glyph or " " for cell in row) for row in self.rows)


@dataclass(frozen=True)
class Text:
    """Monospaced text, e.g. an ANSI-free terminal render."""

    text: str


@dataclass(frozen=True)
class Svg:
    """An SVG document (markup as a string)."""

    markup: str


View = Frame | Board | Text | Svg


@dataclass(frozen=True)
class ActionChoice:
    """A labelled action the playground offers as a button.

    ``action`` is the action's fields as a dict (or an Action instance); ``key`` is an optional
    keyboard key in ``KeyboardEvent.key`` spelling (``"ArrowUp"``, ``"w"``, ``" "``).
    """

    label: str
    action: Any
    key: str | None = None
    description: str = ""


def png_data_url(png: bytes) -> str:
    """Encode PNG bytes as a ``data:`` URL."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
