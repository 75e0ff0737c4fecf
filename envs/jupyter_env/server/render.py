"""The notebook drawn as one SVG: the last cells with their code, text outputs, tracebacks,
matplotlib images (inline ``data:image/png`` in ``<image>``) and pandas tables (the HTML table
parsed into a grid of text; no HTML is ever inlined).

Everything drawn is bounded: ``SHOWN_CELLS`` cells, ``CODE_LINES`` / ``TEXT_LINES`` lines of
``LINE_CHARS`` characters, tables of ``TABLE_ROWS`` x ``TABLE_COLS`` cells.
"""

from __future__ import annotations

import base64
import binascii
import struct
from html import escape
from html.parser import HTMLParser

from jupyter_env.models import CellOutput, NotebookCell

WIDTH = 660
LEFT = 78  # the In [n]: gutter
LINE = 17
CHAR = 7.8  # width of one 13 px monospace character
SHOWN_CELLS = 5
CODE_LINES = 14
TEXT_LINES = 16
LINE_CHARS = 72
TABLE_ROWS = 12
TABLE_COLS = 8
CELL_CHARS = 14
IMAGE_W, IMAGE_H = 540, 340
EMPTY = "No cell executed yet: call add_and_execute_code_cell."
FONT = 'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="13"'


def notebook_svg(cells: list[NotebookCell], kernel: str) -> str:
    """The SVG markup of the notebook's last cells, under a title bar."""
    parts: list[str] = []
    y = 44
    shown = cells[-SHOWN_CELLS:]
    if len(cells) > len(shown):
        parts.append(_text(LEFT, y + 12, f"... {len(cells) - len(shown)} earlier cell(s)", "#888"))
        y += LINE + 6
    if not cells:
        parts.append(_text(LEFT, y + 14, EMPTY, "#666"))
        y += 30
    for cell in shown:
        y = _cell(parts, cell, y) + 14
    title = (
        f'<rect x="0" y="0" width="{WIDTH}" height="32" fill="#f37626"/>'
        f'<text x="14" y="21" fill="#fff" font-family="sans-serif" font-size="15" '
        f'font-weight="bold">Jupyter notebook</text>'
        f'<text x="{WIDTH - 14}" y="21" fill="#fff" font-family="sans-serif" font-size="13" '
        f'text-anchor="end">{escape(kernel)} · {len(cells)} cell(s)</text>'
    )
    height = max(y, 120)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}"><rect width="{WIDTH}" height="{height}" fill="#fff"/>'
        f"{title}<g {FONT}>{''.join(parts)}</g></svg>"
    )


def _cell(parts: list[str], cell: NotebookCell, y: int) -> int:
    label = "In [%s]:" % (cell.execution_count or " ") if cell.cell_type == "code" else "$"
    code = _lines(cell.code, CODE_LINES)
    box_h = len(code) * LINE + 10
    color = "#303f9f" if cell.success else "#c62828"
    parts.append(_text(8, y + 17, label, color))
    parts.append(
        f'<rect x="{LEFT - 6}" y="{y}" width="{WIDTH - LEFT - 2}" height="{box_h}" rx="3" '
        f'fill="#f5f5f5" stroke="#cfcfcf"/>'
    )
    parts.extend(_text(LEFT, y + 17 + i * LINE, line, "#222") for i, line in enumerate(code))
    y += box_h + 6
    for out in cell.outputs:
        y = _output(parts, out, y)
    return y


def _output(parts: list[str], out: CellOutput, y: int) -> int:
    if out.png is not None and (size := _png_size(out.png)) is not None:
        return _image(parts, out.png, size, y)
    if out.html is not None and (rows := parse_table(out.html)):
        return _table(parts, rows, y)
    if out.output_type == "error":
        lines = _lines(out.text, TEXT_LINES)
        h = len(lines) * LINE + 8
        parts.append(
            f'<rect x="{LEFT - 6}" y="{y}" width="{WIDTH - LEFT - 2}" height="{h}" fill="#fdecea"/>'
        )
        parts.extend(_text(LEFT, y + 15 + i * LINE, s, "#b71c1c") for i, s in enumerate(lines))
        return y + h + 4
    color = "#b71c1c" if out.name == "stderr" else "#222"
    lines = _lines(out.text, TEXT_LINES)
    if out.output_type == "execute_result":
        parts.append(_text(8, y + 13, "Out:", "#d84315"))
    parts.extend(_text(LEFT, y + 13 + i * LINE, s, color) for i, s in enumerate(lines))
    return y + len(lines) * LINE + 4


def _image(parts: list[str], png: str, size: tuple[int, int], y: int) -> int:
    w, h = size
    scale = min(1.0, IMAGE_W / max(w, 1), IMAGE_H / max(h, 1))
    w, h = max(1, round(w * scale)), max(1, round(h * scale))
    parts.append(
        f'<image x="{LEFT}" y="{y}" width="{w}" height="{h}" href="data:image/png;base64,{png}"/>'
    )
    return y + h + 6


def _table(parts: list[str], rows: list[list[str]], y: int) -> int:
    cols = max(len(r) for r in rows)
    col_w = int(min(CELL_CHARS * CHAR + 12, (WIDTH - LEFT - 10) / cols))
    for r, row in enumerate(rows):
        fill = "#eeeeee" if r == 0 else ("#f7f7f7" if r % 2 == 0 else "#fff")
        parts.append(
            f'<rect x="{LEFT}" y="{y + r * LINE}" width="{col_w * cols}" height="{LINE}" '
            f'fill="{fill}" stroke="#ddd"/>'
        )
        for c, value in enumerate(row):
            weight = "bold" if r == 0 or c == 0 else "normal"
            text = _clip(value, max(1, int((col_w - 8) / CHAR)))
            parts.append(
                f'<text x="{LEFT + c * col_w + col_w - 4}" y="{y + r * LINE + 13}" '
                f'fill="#222" font-weight="{weight}" text-anchor="end" '
                f'xml:space="preserve">{escape(text)}</text>'
            )
    return y + len(rows) * LINE + 8


def _text(x: float, y: float, text: str, color: str) -> str:
    return f'<text x="{x}" y="{y}" fill="{color}" xml:space="preserve">{escape(text)}</text>'


def _lines(text: str, limit: int) -> list[str]:
    lines = text.rstrip("\n").expandtabs(4).split("\n") or [""]
    kept = [_clip(line, LINE_CHARS) for line in lines[:limit]]
    if len(lines) > limit:
        kept.append(f"[... {len(lines) - limit} more line(s)]")
    return kept


def _clip(text: str, chars: int) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return text if len(text) <= chars else text[: max(0, chars - 1)] + "…"


def _png_size(data: str) -> tuple[int, int] | None:
    """Width and height from the PNG's header, or None if it is not a PNG."""
    try:
        head = base64.b64decode(data[:48], validate=False)
    except (binascii.Error, ValueError):
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


class _TableParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self.tables = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "table":
            self.tables += 1
        elif tag == "tr" and self.tables == 1:
            self.rows.append([])
        elif tag in ("td", "th") and self.rows:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def parse_table(html: str) -> list[list[str]]:
    """The first table of ``html`` as rows of text (bounded), or [] if there is none."""
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    rows = [row[:TABLE_COLS] for row in parser.rows if row]
    if len(rows) > TABLE_ROWS:
        rows = [*rows[: TABLE_ROWS - 1], ["…"] * len(rows[0])]
    return rows
