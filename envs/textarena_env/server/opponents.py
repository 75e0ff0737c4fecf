"""Built-in opponents for the two-player games: they play player 1, inside the agent's step.

``heuristic`` (the default): take a winning move, else block the agent's winning move, else
the centre-most free square or column (ties broken at random). ``random``: any legal move.
``human``: nobody plays player 1 inside the step; the next step is player 1's move (a second
person, or the playground's agent answering the visitor's moves).
Both read the board from TextArena's game state and draw from the session's random state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Literal

Opponent = Literal["heuristic", "random", "human"]
TTT_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
TTT_PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)


def tictactoe_free(board: list[list[str]]) -> list[int]:
    return [r * 3 + c for r in range(3) for c in range(3) if board[r][c] == ""]


def connect4_free(board: list[list[str]]) -> list[int]:
    return [c for c in range(len(board[0])) if board[0][c] == "."]


def tictactoe_move(board: list[list[str]], opponent: Opponent) -> str:
    """Player 1 is 'X' in TextArena's Tic-Tac-Toe, the agent (player 0) 'O'."""
    free = tictactoe_free(board)
    if opponent == "heuristic":
        flat = [board[i // 3][i % 3] for i in range(9)]
        for mark in ("X", "O"):  # win, then block
            for cell in free:
                if any(_ttt_completes(flat, line, cell, mark) for line in TTT_LINES):
                    return f"[{cell}]"
        free = [c for c in TTT_PREFERENCE if c in free][:1] or free
    return f"[{random.choice(free)}]"


def _ttt_completes(flat: list[str], line: tuple[int, ...], cell: int, mark: str) -> bool:
    return cell in line and all(flat[i] == mark for i in line if i != cell)


def connect4_move(board: list[list[str]], opponent: Opponent) -> str:
    """Player 1 is 'O' in TextArena's Connect Four, the agent (player 0) 'X'."""
    free = connect4_free(board)
    if opponent == "heuristic":
        for mark in ("O", "X"):  # win, then block
            for col in free:
                if _c4_wins(board, col, mark):
                    return f"[col {col}]"
        centre = (len(board[0]) - 1) / 2
        best = min(abs(c - centre) for c in free)
        free = [c for c in free if abs(c - centre) <= best + 1]
    return f"[col {random.choice(free)}]"


def _c4_wins(board: list[list[str]], col: int, mark: str) -> bool:
    rows, cols = len(board), len(board[0])
    row = max(r for r in range(rows) if board[r][col] == ".")
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < rows and 0 <= c < cols and board[r][c] == mark:
                count, r, c = count + 1, r + sign * dr, c + sign * dc
        if count >= 4:
            return True
    return False


MOVERS: dict[str, Callable[[Any, Opponent], str]] = {
    "TicTacToe-v0": tictactoe_move,
    "ConnectFour-v0": connect4_move,
}
