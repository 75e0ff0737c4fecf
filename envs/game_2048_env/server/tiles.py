"""2048 board mechanics: slide and merge a 4×4 grid (pure functions, no randomness)."""

from __future__ import annotations

from game_2048_env.models import Direction

SIZE = 4
Grid = list[list[int]]


def slide_row_left(row: list[int]) -> tuple[list[int], int]:
    """Slide one row to the left, merging equal neighbours once; return (row, points)."""
    tiles = [v for v in row if v]
    out: list[int] = []
    points = 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(tiles[i] * 2)
            points += tiles[i] * 2
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return out + [0] * (len(row) - len(out)), points


def slide(board: Grid, direction: Direction) -> tuple[Grid, int]:
    """The board after sliding every tile towards ``direction``, and the points scored."""
    turned = _turn(board, direction)
    moved, points = [], 0
    for row in turned:
        new_row, gained = slide_row_left(row)
        moved.append(new_row)
        points += gained
    return _unturn(moved, direction), points


def legal_directions(board: Grid) -> list[Direction]:
    """Directions whose slide changes the board."""
    return [d for d in Direction if slide(board, d)[0] != board]


def _transpose(board: Grid) -> Grid:
    return [list(col) for col in zip(*board, strict=True)]


def _mirror(board: Grid) -> Grid:
    return [row[::-1] for row in board]


def _turn(board: Grid, direction: Direction) -> Grid:
    """Rearrange the board so that ``direction`` becomes LEFT."""
    if direction is Direction.LEFT:
        return [row[:] for row in board]
    if direction is Direction.RIGHT:
        return _mirror(board)
    if direction is Direction.UP:
        return _transpose(board)
    return _mirror(_transpose(board))


def _unturn(board: Grid, direction: Direction) -> Grid:
    if direction is Direction.DOWN:
        return _transpose(_mirror(board))
    return _turn(board, direction)
