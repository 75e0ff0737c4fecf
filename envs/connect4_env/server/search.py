"""The ``search`` opponent: depth-limited negamax with alpha-beta pruning.

Positions are scored by counting open lines of four (windows); a win found sooner scores
higher. Columns are tried centre first and ties go to the centre, so the opponent is
deterministic for a given position and depth.
"""

from __future__ import annotations

from connect4_env.server.board import (
    CENTRE_FIRST,
    COLUMNS,
    ROWS,
    Grid,
    drop,
    is_full,
    undo,
    wins,
)

WIN_SCORE = 1_000_000
_WINDOWS = [
    [(r + i * dr, c + i * dc) for i in range(4)]
    for r in range(ROWS)
    for c in range(COLUMNS)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
    if 0 <= r + 3 * dr < ROWS and 0 <= c + 3 * dc < COLUMNS
]


def best_column(board: Grid, player: int, depth: int) -> int:
    """The column ``player`` (1 or -1) should play, searching ``depth`` plies ahead."""
    best, best_score = -1, -WIN_SCORE * 2
    alpha, beta = -WIN_SCORE * 2, WIN_SCORE * 2
    for col in _moves(board):
        row = drop(board, col, player)
        if wins(board, row, col):
            score = WIN_SCORE + depth
        else:
            score = -_negamax(board, -player, depth - 1, -beta, -alpha)
        undo(board, col)
        if score > best_score:
            best, best_score = col, score
        alpha = max(alpha, score)
    return best


def _negamax(board: Grid, player: int, depth: int, alpha: int, beta: int) -> int:
    if is_full(board):
        return 0
    if depth <= 0:
        return evaluate(board, player)
    best = -WIN_SCORE * 2
    for col in _moves(board):
        row = drop(board, col, player)
        if wins(board, row, col):
            score = WIN_SCORE + depth
        else:
            score = -_negamax(board, -player, depth - 1, -beta, -alpha)
        undo(board, col)
        best = max(best, score)
        alpha = max(alpha, score)
        if alpha >= beta:
            break
    return best


def evaluate(board: Grid, player: int) -> int:
    """Heuristic value of ``board`` for ``player``: open lines and centre control."""
    score = 3 * sum(board[r][3] == player for r in range(ROWS))
    for window in _WINDOWS:
        values = [board[r][c] for r, c in window]
        mine, theirs = values.count(player), values.count(-player)
        if theirs == 0:
            score += (0, 1, 4, 16, 0)[mine]
        elif mine == 0:
            score -= (0, 1, 4, 20, 0)[theirs]
    return score


def _moves(board: Grid) -> list[int]:
    return [c for c in CENTRE_FIRST if board[0][c] == 0]
