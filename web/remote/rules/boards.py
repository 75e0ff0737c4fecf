"""Rules 2 and 3: a chess board from a FEN, and boards from grids (see the package's rules)."""

from __future__ import annotations

import json
import re
from typing import Any

from openenv.core.views import Board, Cell, View
from openenv.web.remote.rules.bounds import (
    EMPTY,
    MAX_CATEGORIES,
    MAX_CELL_TEXT,
    MAX_GRID,
    MAX_GRID_JSON,
    PALETTE,
    is_number,
)

# -- chess ------------------------------------------------------------------------------------

PIECES = dict(zip("KQRBNPkqrbnp", "♔♕♖♗♘♙♚♛♜♝♞♟", strict=True))
LIGHT, DARK, INK = "#f0d9b5", "#b58863", "#111827"
FILES = "abcdefgh"
_FEN_TAIL = re.compile(r"[wb] (-|[KQkqA-Ha-h]{1,4}) (-|[a-h][36]) \d{1,4} \d{1,5}")


def chess_view(obs: dict[str, Any], names: list[str]) -> tuple[View | None, tuple[str, ...]]:
    for name in names:
        value = obs[name]
        board = _fen_board(value) if isinstance(value, str) and len(value) <= 100 else None
        if board is not None:
            return board, (name,)
    return None, ()


def _fen_board(text: str) -> Board | None:
    """The board of a FEN position, or ``None`` when ``text`` is not one."""
    parts = text.split()
    if len(parts) != 6 or not _FEN_TAIL.fullmatch(" ".join(parts[1:])):
        return None
    ranks = [_rank(rank) for rank in parts[0].split("/")]
    if len(ranks) != 8 or None in ranks:
        return None
    rows = [
        [_square(piece, r, c) for c, piece in enumerate(rank or "")] for r, rank in enumerate(ranks)
    ]
    return Board(rows, caption=f"{'White' if parts[1] == 'w' else 'Black'} to move")


def _rank(rank: str) -> str | None:
    """A FEN rank spelled out square by square (a space per empty one), if it holds eight."""
    squares = "".join(" " * int(c) if c in "12345678" else c for c in rank)
    if len(squares) != 8 or any(c != " " and c not in PIECES for c in squares):
        return None
    return squares


def _square(piece: str, row: int, col: int) -> Cell:
    return Cell(
        glyph=PIECES.get(piece, ""),
        color=INK if piece in PIECES else None,
        background=LIGHT if (row + col) % 2 == 0 else DARK,  # a8, top left, is light
        label=f"{FILES[col]}{8 - row}",
    )


# -- grids ------------------------------------------------------------------------------------


def grid_view(obs: dict[str, Any], names: list[str]) -> tuple[View | None, tuple[str, ...]]:
    """Rule 3: the first field (then ``metadata`` entry) holding a grid, as a board."""
    metadata = obs.get("metadata")
    extra = list(metadata.items()) if isinstance(metadata, dict) else []
    for name, value, used in [(n, obs[n], (n,)) for n in names] + [(k, v, ()) for k, v in extra]:
        if not isinstance(name, str):
            continue
        rows = _rows(value)
        if rows is not None:
            return _board(name, rows), used
    return None, ()


def _rows(value: Any) -> list[list[Any]] | None:
    """``value`` as the rows of a grid (see rule 3), or ``None``."""
    if isinstance(value, str) and value.lstrip().startswith("[[") and len(value) <= MAX_GRID_JSON:
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, list) or not 0 < len(value) <= MAX_GRID:
        return None
    if not all(isinstance(row, list) for row in value):
        return None
    width = len(value[0])
    if not 0 < width <= MAX_GRID or any(len(row) != width for row in value):
        return None
    if len(value) * width < 2:
        return None
    cells = [cell for row in value for cell in row]
    numbers = all(is_number(c) for c in cells)
    texts = all(c is None or (isinstance(c, str) and len(c) <= MAX_CELL_TEXT) for c in cells)
    return value if numbers or texts else None


def _board(name: str, rows: list[list[Any]]) -> Board:
    cells = [cell for row in rows for cell in row]
    kinds = sorted({c for c in cells if c not in (None, "", 0)}, key=_order)
    numeric = all(is_number(c) for c in cells)
    whole = numeric and all(float(c).is_integer() for c in cells)
    if (numeric and not whole) or len(kinds) > MAX_CATEGORIES:
        return _shaded(name, rows) if numeric else _written(name, rows, {})
    colours = {kind: PALETTE[i % len(PALETTE)] for i, kind in enumerate(kinds)}
    if not numeric:
        return _written(name, rows, colours)
    written = len(kinds) > 2  # a number grid (sudoku, 2048), not pieces
    board = [
        [_grid_square(name, r, c, value, colours, written) for c, value in enumerate(row)]
        for r, row in enumerate(rows)
    ]
    legend = {str(k): colours[k][1] for k in kinds}
    if any(c == 0 for c in cells):
        legend["0"] = "empty"
    return Board(board, legend=legend, caption=f"{name} ({len(rows)}×{len(rows[0])})")


def _order(value: Any) -> tuple[int, Any]:
    """Categories in a stable order: positive numbers first (1 before -1), then the others."""
    if is_number(value):
        return (0 if value > 0 else 1, abs(value))
    return (2, str(value))


def _grid_square(
    name: str, row: int, col: int, value: Any, colours: dict[Any, tuple[str, str]], written: bool
) -> Cell:
    colour = colours.get(value)
    return Cell(
        glyph=str(value) if written and value not in (0, None, "") else "",
        color="#FFFFFF" if colour and written else INK,
        background=colour[0] if colour else EMPTY,
        label=f"{name}[{row}][{col}] = {value}",
    )


def _written(name: str, rows: list[list[Any]], colours: dict[Any, tuple[str, str]]) -> Board:
    """A grid of short strings: each written on its square (tinted by kind when few)."""
    board = [
        [
            Cell(
                glyph="" if value is None else str(value),
                color=INK,
                background=_tint(colours[value][0]) if value in colours else EMPTY,
                label=f"{name}[{r}][{c}] = {value}",
            )
            for c, value in enumerate(row)
        ]
        for r, row in enumerate(rows)
    ]
    return Board(board, caption=f"{name} ({len(rows)}×{len(rows[0])})")


def _tint(colour: str) -> str:
    """``colour`` mixed three parts in four with white: glyphs stay legible on it."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{(v + 3 * 255) // 4:02X}" for v in (red, green, blue))


def _shaded(name: str, rows: list[list[Any]]) -> Board:
    """Numbers from their lowest (light) to their highest (dark blue)."""
    cells = [float(c) for row in rows for c in row]
    low, high = min(cells), max(cells)
    span = (high - low) or 1.0

    def shade(value: float) -> str:
        t = (value - low) / span
        red, green, blue = (round(a + (b - a) * t) for a, b in ((239, 8), (246, 48), (255, 107)))
        return f"#{red:02X}{green:02X}{blue:02X}"

    board = [
        [
            Cell(background=shade(float(v)), label=f"{name}[{r}][{c}] = {v:g}")
            for c, v in enumerate(row)
        ]
        for r, row in enumerate(rows)
    ]
    legend = {f"{low:g}": "lightest", f"{high:g}": "darkest"}
    return Board(board, legend=legend, caption=f"{name} ({len(rows)}×{len(rows[0])})")
