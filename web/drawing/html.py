"""Views as HTML for the stage, one function per view type (dispatched by
:mod:`openenv.web.drawing.dispatch`), and an observation's fields when nothing is rendered.

A ``Frame`` becomes a PNG ``<img>`` the browser scales up crisply (``image-rendering:
pixelated``); a ``Board`` a CSS grid of glyphs and colours; ``Text`` a monospaced block; ``Svg``
inline markup. Environments that render nothing get their observation fields, legibly, with
large arrays folded to their shape.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from openenv.core.views import Board, Cell, Frame, Svg, Text, png_data_url
from openenv.web.drawing.svg import sanitize_svg

MAX_LIST_ITEMS = 32
MAX_STRING = 4000
FRAME_HINTS = {  # the frame's alt text says what it answers: (takes clicks, takes keys)
    (False, False): "",
    (True, False): " (click on it to act there)",
    (True, True): " (click on it to act there; type to send keys)",
    (False, True): " (focus it and type to send keys)",
}


def frame_html(frame: Frame) -> str:
    """An ``<img>`` of the frame at its own size; CSS scales it up without smoothing."""
    return png_html(frame.to_png(), frame.shape, frame.click is not None, frame.keys is not None)


def png_html(png: bytes, shape: tuple[int, int], click: bool = False, keys: bool = False) -> str:
    """An ``<img>`` of a frame's PNG (``shape`` is its height and width). A frame that takes
    clicks (``data-click``) or keys (``data-keys``, focusable) is answered by the stage script."""
    height, width = shape
    live = (' data-click=""' if click else "") + (' data-keys="" tabindex="0"' if keys else "")
    hint = FRAME_HINTS[click, keys]
    return (
        f'<img class="oe-frame" alt="environment frame {width}×{height}{hint}" '
        f'width="{width}" height="{height}" style="aspect-ratio:{width}/{height}"{live} '
        f'src="{png_data_url(png)}">'
    )


def text_html(text: Text) -> str:
    return f'<pre class="oe-text">{html.escape(text.text)}</pre>'


def svg_html(svg: Svg) -> str:
    return f'<div class="oe-svg">{sanitize_svg(svg.markup)}</div>'


def board_html(board: Board) -> str:
    rows, cols = board.shape
    cells = "".join(
        _cell_html(cell, r, c)
        for r, row in enumerate(board.rows)
        for c, cell in enumerate(_padded(row, cols))
    )
    legend = "".join(
        f'<span class="oe-legend-item"><b>{html.escape(glyph)}</b> {html.escape(text)}</span>'
        for glyph, text in board.legend.items()
    )
    caption = f'<div class="oe-caption">{html.escape(board.caption)}</div>' if board.caption else ""
    return (
        f'<div class="oe-board-wrap"><div class="oe-board" role="grid" '
        f'style="--cols:{cols};--rows:{rows}">{cells}</div></div>'
        f"{caption}" + (f'<div class="oe-legend">{legend}</div>' if legend else "")
    )


def _padded(row: list[Cell], cols: int) -> list[Cell]:
    return row + [Cell()] * (cols - len(row))


def _cell_html(cell: Cell, row: int, col: int) -> str:
    style = []
    if cell.background:
        style.append(f"background:{_css_value(cell.background)}")
    if cell.color:
        style.append(f"color:{_css_value(cell.color)}")
    title = f' title="{html.escape(cell.label)}"' if cell.label else ""
    attr = f' style="{";".join(style)}"' if style else ""
    glyph = html.escape(cell.glyph)
    if cell.action is not None:  # a square that steps its action when clicked
        name = html.escape(cell.label or cell.glyph or f"square {row + 1}, {col + 1}")
        return (
            f'<button type="button" class="oe-cell oe-cell-act" role="gridcell" '
            f'data-r="{row}" data-c="{col}" aria-label="{name}"{attr}{title}>{glyph}</button>'
        )
    return f'<div class="oe-cell" role="gridcell"{attr}{title}>{glyph}</div>'


def _css_value(value: str) -> str:
    # Colours only: drop anything that could end the declaration or the attribute.
    return re.sub(r"[;\"'<>{}]", "", value)


def observation_html(observation: dict[str, Any]) -> str:
    """The observation's fields as a definition list (reward and done are shown elsewhere)."""
    fields = {k: v for k, v in observation.items() if k not in ("reward", "done")}
    if not fields.get("metadata"):
        fields.pop("metadata", None)
    if not fields:
        return '<div class="oe-empty">This environment has nothing to draw yet.</div>'
    rows = "".join(
        f"<dt>{html.escape(str(name))}</dt><dd>{_value_html(value)}</dd>"
        for name, value in fields.items()
    )
    return f'<dl class="oe-fields">{rows}</dl>'


def _value_html(value: Any) -> str:
    folded = fold(value)
    if isinstance(folded, str):
        if "\n" in folded:
            return f'<pre class="oe-text">{html.escape(folded)}</pre>'
        return html.escape(folded)
    return f"<code>{html.escape(json.dumps(folded, ensure_ascii=False))}</code>"


def fold(value: Any) -> Any:
    """Replace large (nested) lists by a short ``array(shape)`` description, and an encoded
    frame (:mod:`openenv.core.frames`) by ``frame(shape, encoding, size)``."""
    if _is_encoded_frame(value):
        shape = "×".join(map(str, value["shape"]))
        return f"frame({shape}, {value['encoding']}, {len(value['data']):,} B of base64)"
    if isinstance(value, list):
        shape = array_shape(value)
        if len(value) > MAX_LIST_ITEMS or (shape and len(shape) > 1 and _size(shape) > 64):
            kind = "×".join(map(str, shape)) if shape else f"{len(value)} items"
            return f"array({kind})"
        return [fold(v) for v in value]
    if isinstance(value, dict):
        return {k: fold(v) for k, v in value.items()}
    if isinstance(value, str) and len(value) > MAX_STRING:
        return value[:MAX_STRING] + f"… ({len(value) - MAX_STRING} more characters)"
    return value


def _is_encoded_frame(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and {"encoding", "shape", "data"} <= set(value) <= {"encoding", "shape", "data", "repeats"}
        and isinstance(value["data"], str)
        and isinstance(value["shape"], list)
    )


def array_shape(value: Any) -> tuple[int, ...] | None:
    """The shape of a rectangular nested list, or ``None`` when it is ragged."""
    if not isinstance(value, list):
        return ()
    if not value:
        return (0,)
    inner = [array_shape(v) for v in value]
    if any(s is None for s in inner) or len(set(inner)) != 1:
        return None
    return (len(value), *inner[0])


def _size(shape: tuple[int, ...]) -> int:
    total = 1
    for n in shape:
        total *= n
    return total
