"""Connect Four rules on a plain list-of-lists board (row 0 at the top)."""

from __future__ import annotations

ROWS, COLUMNS = 6, 7
Grid = list[list[int]]
# Centre columns first: better moves are tried first and ties favour the centre.
CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def new_board() -> Grid:
    return [[0] * COLUMNS for _ in range(ROWS)]


def legal_columns(board: Grid) -> list[int]:
    """Columns (left to right) whose top cell is empty."""
    return [c for c in range(COLUMNS) if board[0][c] == 0]


def drop(board: Grid, column: int, player: int) -> int:
    """Place ``player``'s piece in ``column``; return the row it lands on."""
    for row in range(ROWS - 1, -1, -1):
        if board[row][column] == 0:
            board[row][column] = player
            return row
    raise ValueError(f"column {column} is full")


def undo(board: Grid, column: int) -> None:
    """Remove the top piece of ``column`` (used by the search)."""
    for row in range(ROWS):
        if board[row][column] != 0:
            board[row][column] = 0
            return


def wins(board: Grid, row: int, column: int) -> bool:
    """True when the piece at (row, column) is part of four in a row."""
    player = board[row][column]
    return player != 0 and any(
        _run(board, row, column, dr, dc, player) + _run(board, row, column, -dr, -dc, player) >= 3
        for dr, dc in _DIRECTIONS
    )


def winning_cells(board: Grid) -> set[tuple[int, int]]:
    """Every (row, column) that belongs to a line of four (for drawing the result)."""
    cells: set[tuple[int, int]] = set()
    for row in range(ROWS):
        for col in range(COLUMNS):
            for dr, dc in _DIRECTIONS:
                line = [(row + i * dr, col + i * dc) for i in range(4)]
                if all(_inside(r, c) for r, c in line):
                    values = {board[r][c] for r, c in line}
                    if len(values) == 1 and 0 not in values:
                        cells.update(line)
    return cells


def is_full(board: Grid) -> bool:
    return all(cell != 0 for cell in board[0])


def _run(board: Grid, row: int, col: int, dr: int, dc: int, player: int) -> int:
    count = 0
    r, c = row + dr, col + dc
    while _inside(r, c) and board[r][c] == player:
        count += 1
        r, c = r + dr, c + dc
    return count


def _inside(row: int, col: int) -> bool:
    return 0 <= row < ROWS and 0 <= col < COLUMNS
