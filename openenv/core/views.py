"""What an environment draws, as plain data. The web layer decides how to paint it.

``Environment.render()`` returns one of these views (or ``None``). The same view feeds the
playground, a GIF export, or a notebook's ``_repr_png_``; environments never return HTML.
"""

from __future__ import annotations

import base64
import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, cast

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


@dataclass(frozen=True)
class Slider:
    """One number of a continuous action, drawn as a slider from ``low`` to ``high``.

    ``value`` is where the slider starts (clamped into the range); ``step`` is its increment
    (``None``: the power of ten nearest below a hundredth of the range).
    """

    label: str
    low: float
    high: float
    value: float = 0.0
    step: float | None = None

    def __post_init__(self) -> None:
        low, high = float(self.low), float(self.high)
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(
                f"Slider {self.label!r} needs finite bounds low < high, got {low}, {high}"
            )
        # A power of ten near a hundredth of the range: round values such as 1.5 stay reachable.
        step = 10 ** math.floor(math.log10((high - low) / 100)) if self.step is None else self.step
        step = float(step)
        if not (math.isfinite(step) and step > 0):
            raise ValueError(f"Slider {self.label!r} needs a positive step, got {self.step}")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "value", min(max(float(self.value), low), high))
        object.__setattr__(self, "step", step)

    def snap(self, value: float) -> float:
        """``value`` on the nearest step from ``low``, inside the range (``1.98``, not
        ``1.9800000000000002``)."""
        step = cast(float, self.step)  # never None once __post_init__ has run
        steps = round((value - self.low) / step)
        return float(f"{min(max(self.low + steps * step, self.low), self.high):.12g}")


@dataclass(frozen=True)
class ActionSliders:
    """A continuous action the playground offers as sliders and a Step button.

    The action sent is ``action`` (its other fields) with ``field`` set to the list of slider
    values, or to the one value when ``scalar``. Autoplay draws each value uniformly.
    """

    field: str
    sliders: tuple[Slider, ...]
    scalar: bool = False
    action: dict[str, Any] = dataclasses.field(default_factory=dict)  # `field` is a str here

    def __post_init__(self) -> None:
        object.__setattr__(self, "sliders", tuple(self.sliders))
        if not self.sliders or not all(isinstance(s, Slider) for s in self.sliders):
            raise ValueError("ActionSliders needs at least one Slider")
        if self.scalar and len(self.sliders) != 1:
            raise ValueError("a scalar ActionSliders has exactly one Slider")

    @property
    def start(self) -> list[float]:
        return [s.value for s in self.sliders]

    def action_for(self, values: Any) -> dict[str, Any]:
        """The action for slider ``values``; ValueError says what is wrong with them."""
        if not isinstance(values, list | tuple) or len(values) != len(self.sliders):
            raise ValueError(f"send {len(self.sliders)} slider values as a list")
        checked = []
        for slider, value in zip(self.sliders, values, strict=True):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{slider.label}: {value!r} is not a number")
            if not slider.low <= value <= slider.high:
                raise ValueError(
                    f"{slider.label}: {value:g} is outside [{slider.low:g}, {slider.high:g}]"
                )
            checked.append(float(value))
        return {**self.action, self.field: checked[0] if self.scalar else checked}

    def sample(self, rng: Any) -> list[float]:
        """Values drawn uniformly from each slider's range by ``rng`` (``random.Random``), on
        the slider's steps (what dragging it could give)."""
        return [s.snap(rng.uniform(s.low, s.high)) for s in self.sliders]


def png_data_url(png: bytes) -> str:
    """Encode PNG bytes as a ``data:`` URL."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
