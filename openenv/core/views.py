"""What an environment draws, as plain data. The web layer decides how to paint it.

``Environment.render()`` returns one of these views (or ``None``). The same view feeds the
playground, a GIF export, or a notebook's ``_repr_png_``; environments never return HTML.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

MAX_KEY_NAME = 32  # KeyboardEvent.key names are short: 'a', 'Enter', 'ArrowUp'


@dataclass(frozen=True)
class Frame:
    """An RGB image: ``pixels`` is an H×W×3 ``uint8`` array (H×W grayscale is promoted).

    ``click``: the action a click on the frame steps, as action fields whose strings may hold
    ``{x}`` and ``{y}``, replaced by the clicked pixel (integers, ``0 <= x < W``, ``0 <= y < H``
    of ``pixels``). ``keys``: the action a key typed while the frame has the focus steps, with
    ``{key}`` replaced by the key (``KeyboardEvent.key``: ``a``, ``Enter``, ``ArrowUp``) as a
    JSON string, quotes included (``keyboard_press({key})`` -> ``keyboard_press("a")``).
    """

    pixels: np.ndarray
    click: dict[str, Any] | None = None
    keys: dict[str, Any] | None = None

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

    def click_action(self, x: Any, y: Any) -> dict[str, Any]:
        """The ``click`` action for pixel (``x``, ``y``); ValueError says what is wrong."""
        if self.click is None:
            raise ValueError("this frame takes no clicks")
        height, width = self.shape
        for name, value, size in (("x", x, width), ("y", y, height)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size:
                raise ValueError(f"{name} must be a whole pixel in [0, {size - 1}], got {value!r}")
        return fill_action(self.click, {"{x}": str(x), "{y}": str(y)})

    def key_action(self, key: Any) -> dict[str, Any]:
        """The ``keys`` action for ``key`` (``KeyboardEvent.key``); ValueError says what is
        wrong."""
        if self.keys is None:
            raise ValueError("this frame takes no keys")
        if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY_NAME or not key.isprintable():
            raise ValueError(f"a key is a KeyboardEvent.key name of 1 to {MAX_KEY_NAME} characters")
        return fill_action(self.keys, {"{key}": json.dumps(key)})


@dataclass(frozen=True)
class Cell:
    """One square of a Board: a glyph (a character or short text) and CSS colours.

    ``action``: the action fields a click on the square steps (``None``: not clickable).
    """

    glyph: str = ""
    color: str | None = None
    background: str | None = None
    label: str | None = None
    action: dict[str, Any] | None = None


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

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return _notebook(self)

    def cell_action(self, row: Any, col: Any) -> dict[str, Any]:
        """The action of the square at (``row``, ``col``); ValueError when there is none."""
        for value in (row, col):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"a square is two whole numbers, got {row!r}, {col!r}")
        if not (0 <= row < len(self.rows) and 0 <= col < len(self.rows[row])):
            raise ValueError(f"there is no square ({row}, {col}) on this board")
        action = self.rows[row][col].action
        if action is None:
            raise ValueError(f"square ({row}, {col}) takes no clicks")
        return dict(action)


@dataclass(frozen=True)
class Text:
    """Monospaced text, e.g. an ANSI-free terminal render."""

    text: str

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return _notebook(self)


@dataclass(frozen=True)
class Svg:
    """An SVG document (markup as a string)."""

    markup: str

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return _notebook(self)


View = Frame | Board | Text | Svg


def _notebook(view: Any) -> Any:
    """Jupyter's picture of a board, text or SVG, drawn by :mod:`openenv.web.drawing` (imported
    only when a notebook asks: the web layer draws, core describes)."""
    try:
        from openenv.web.drawing.notebook import view_bundle
    except ImportError:
        return None
    return view_bundle(view)


@dataclass(frozen=True)
class ActionChoice:
    """A labelled action the playground offers as a button.

    ``action`` is the action's fields as a dict (or an Action instance); ``key`` is an optional
    keyboard key in ``KeyboardEvent.key`` spelling (``"ArrowUp"``, ``"w"``, ``" "``). ``idle``
    marks the action the playground's real-time mode steps while no key is held (Atari's NOOP,
    a snake going on ahead); an environment marks at most one. ``path`` names the squares a
    move goes from and to, as the picture names them (an Svg ``rect`` of class ``square e2``,
    or ``data-square="e2"``): the playground then moves by clicking a piece, then a target.
    """

    label: str
    action: Any
    key: str | None = None
    description: str = ""
    idle: bool = False
    path: tuple[str, ...] = ()

    def fields(self) -> dict[str, Any]:
        """The action as a dict of its fields (an Action instance is dumped as JSON)."""
        action = self.action
        return action.model_dump(mode="json") if hasattr(action, "model_dump") else dict(action)


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


def fill_action(template: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """``template`` with each placeholder of ``values`` replaced in its strings (nested lists
    and dicts too). Plain replacement, never ``str.format``: a template is data."""

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            for placeholder, text in values.items():
                value = value.replace(placeholder, text)
            return value
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    return fill(template)


def png_data_url(png: bytes) -> str:
    """Encode PNG bytes as a ``data:`` URL."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
