"""Maze layouts: a built-in set of 8×8 mazes and a seeded generator.

A layout is a list of rows; ``#`` is a wall, ``.`` an open cell, ``S`` the start and ``E`` the
exit. Every built-in layout is solvable (tests check it with a breadth-first search).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Literal

from openenv.core import InvalidAction

SIZE = 8
RANDOM = "random"
# The reset option's choices (the playground shows them as a dropdown).
LayoutName = Literal["classic", "zigzag", "rooms", "random"]

BUILT_IN: dict[str, tuple[str, ...]] = {
    "classic": (
        "S...#...",
        "##.##.#.",
        "...#..#.",
        ".#.#.##.",
        ".#...#..",
        ".####.#.",
        "......#.",
        "#.###..E",
    ),
    "zigzag": (
        "S.......",
        "#######.",
        "........",
        ".#######",
        "........",
        "#######.",
        "........",
        "E#######",
    ),
    "rooms": (
        "S..#....",
        "...#....",
        "........",
        "##.###.#",
        "...#....",
        "...#..#.",
        "......#.",
        "...#..#E",
    ),
}


@dataclass(frozen=True)
class Layout:
    """A parsed layout: ``walls[row][col]`` is True for a wall; cells are ``(col, row)``."""

    name: str
    walls: tuple[tuple[bool, ...], ...]
    start: tuple[int, int]
    exit: tuple[int, int]

    def is_open(self, col: int, row: int) -> bool:
        inside = 0 <= row < len(self.walls) and 0 <= col < len(self.walls[0])
        return inside and not self.walls[row][col]

    def grid(self) -> list[list[int]]:
        return [[int(w) for w in row] for row in self.walls]


def parse(name: str, rows: tuple[str, ...]) -> Layout:
    """Parse ``#``/``.``/``S``/``E`` rows into a :class:`Layout`."""
    cells = {ch: (c, r) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "SE"}
    walls = tuple(tuple(ch == "#" for ch in row) for row in rows)
    return Layout(name=name, walls=walls, start=cells["S"], exit=cells["E"])


def load(name: str, rng: random.Random) -> Layout:
    """A built-in layout by name, or a freshly generated one for ``"random"``."""
    if name == RANDOM:
        return generate(rng)
    if name not in BUILT_IN:
        names = ", ".join([*BUILT_IN, RANDOM])
        raise InvalidAction(f"unknown maze layout {name!r}; choose one of: {names}")
    return parse(name, BUILT_IN[name])


def shortest_path(layout: Layout) -> list[tuple[int, int]]:
    """Cells from the start to the exit along a shortest path ([] when the exit is unreachable)."""
    parents: dict[tuple[int, int], tuple[int, int] | None] = {layout.start: None}
    queue = deque([layout.start])
    while queue:
        cell = queue.popleft()
        if cell == layout.exit:
            path = []
            node: tuple[int, int] | None = cell
            while node is not None:
                path.append(node)
                node = parents[node]
            return path[::-1]
        for nxt in _open_neighbours(layout.walls, cell):
            if nxt not in parents:
                parents[nxt] = cell
                queue.append(nxt)
    return []


def generate(rng: random.Random, size: int = SIZE) -> Layout:
    """A perfect maze carved by a randomized depth-first search; the exit is the farthest cell."""
    open_cells = {(0, 0)}
    stack = [(0, 0)]
    while stack:
        col, row = stack[-1]
        options = [
            (c, r)
            for c, r in ((col, row - 1), (col, row + 1), (col - 1, row), (col + 1, row))
            if 0 <= c < size
            and 0 <= r < size
            and (c, r) not in open_cells
            and _open_count(open_cells, (c, r)) == 1
        ]
        if not options:
            stack.pop()
            continue
        cell = rng.choice(options)
        open_cells.add(cell)
        stack.append(cell)
    walls = tuple(tuple((c, r) not in open_cells for c in range(size)) for r in range(size))
    exit_cell = _farthest(walls, (0, 0))
    return Layout(name=RANDOM, walls=walls, start=(0, 0), exit=exit_cell)


def _open_count(open_cells: set[tuple[int, int]], cell: tuple[int, int]) -> int:
    col, row = cell
    around = ((col, row - 1), (col, row + 1), (col - 1, row), (col + 1, row))
    return sum(n in open_cells for n in around)


def _open_neighbours(walls, cell: tuple[int, int]) -> list[tuple[int, int]]:
    col, row = cell
    out = []
    for c, r in ((col, row - 1), (col, row + 1), (col - 1, row), (col + 1, row)):
        if 0 <= r < len(walls) and 0 <= c < len(walls[0]) and not walls[r][c]:
            out.append((c, r))
    return out


def _farthest(walls, start: tuple[int, int]) -> tuple[int, int]:
    dist = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for nxt in _open_neighbours(walls, cell):
            if nxt not in dist:
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    # Ties broken by position so the result never depends on set iteration order.
    return max(dist, key=lambda c: (dist[c], c[1], c[0]))
