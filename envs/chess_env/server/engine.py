"""Our own small chess engine: piece-square-table evaluation and alpha-beta search.

``evaluate(board)`` scores a position in centipawns from White's point of view (material plus
piece-square tables, the "simplified evaluation function" layout). ``best_move(board, depth,
rng)`` runs a negamax alpha-beta search to ``depth`` plies with a capture-only quiescence
search at the leaves; ``rng`` shuffles the root moves so equal moves vary with the seed while
the same seed always gives the same move. Depth 2 answers in a fraction of a second.
"""

from __future__ import annotations

import random

import chess

MATE_SCORE = 100_000
QUIESCENCE_DEPTH = 4

PIECE_VALUES = {
    chess.PAWN: 100,
    chess.KNIGHT: 320,
    chess.BISHOP: 330,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}

# Tables read like a printed board from White's side: first row is rank 8, first column file a.
_PAWN = [
    0, 0, 0, 0, 0, 0, 0, 0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
    5, 5, 10, 25, 25, 10, 5, 5,
    0, 0, 0, 20, 20, 0, 0, 0,
    5, -5, -10, 0, 0, -10, -5, 5,
    5, 10, 10, -20, -20, 10, 10, 5,
    0, 0, 0, 0, 0, 0, 0, 0,
]  # fmt: skip
_KNIGHT = [
    -50, -40, -30, -30, -30, -30, -40, -50,
    -40, -20, 0, 0, 0, 0, -20, -40,
    -30, 0, 10, 15, 15, 10, 0, -30,
    -30, 5, 15, 20, 20, 15, 5, -30,
    -30, 0, 15, 20, 20, 15, 0, -30,
    -30, 5, 10, 15, 15, 10, 5, -30,
    -40, -20, 0, 5, 5, 0, -20, -40,
    -50, -40, -30, -30, -30, -30, -40, -50,
]  # fmt: skip
_BISHOP = [
    -20, -10, -10, -10, -10, -10, -10, -20,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -10, 0, 5, 10, 10, 5, 0, -10,
    -10, 5, 5, 10, 10, 5, 5, -10,
    -10, 0, 10, 10, 10, 10, 0, -10,
    -10, 10, 10, 10, 10, 10, 10, -10,
    -10, 5, 0, 0, 0, 0, 5, -10,
    -20, -10, -10, -10, -10, -10, -10, -20,
]  # fmt: skip
_ROOK = [
    0, 0, 0, 0, 0, 0, 0, 0,
    5, 10, 10, 10, 10, 10, 10, 5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    0, 0, 0, 5, 5, 0, 0, 0,
]  # fmt: skip
_QUEEN = [
    -20, -10, -10, -5, -5, -10, -10, -20,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -10, 0, 5, 5, 5, 5, 0, -10,
    -5, 0, 5, 5, 5, 5, 0, -5,
    0, 0, 5, 5, 5, 5, 0, -5,
    -10, 5, 5, 5, 5, 5, 0, -10,
    -10, 0, 5, 0, 0, 0, 0, -10,
    -20, -10, -10, -5, -5, -10, -10, -20,
]  # fmt: skip
_KING_MIDDLEGAME = [
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -20, -30, -30, -40, -40, -30, -30, -20,
    -10, -20, -20, -20, -20, -20, -20, -10,
    20, 20, 0, 0, 0, 0, 20, 20,
    20, 30, 10, 0, 0, 10, 30, 20,
]  # fmt: skip
_KING_ENDGAME = [
    -50, -40, -30, -20, -20, -30, -40, -50,
    -30, -20, -10, 0, 0, -10, -20, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -30, 0, 0, 0, 0, -30, -30,
    -50, -30, -30, -30, -30, -30, -30, -50,
]  # fmt: skip

_TABLES = {
    chess.PAWN: _PAWN,
    chess.KNIGHT: _KNIGHT,
    chess.BISHOP: _BISHOP,
    chess.ROOK: _ROOK,
    chess.QUEEN: _QUEEN,
}
_ENDGAME_MATERIAL = 1300  # non-pawn material per side below which kings head for the centre
_MINOR_AND_MAJOR = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def _square_values(piece_type: int, color: chess.Color, table: list[int]) -> list[int]:
    """Material plus table bonus for each square 0..63 (a1..h8) for one piece and colour."""
    flip = 56 if color == chess.WHITE else 0  # tables are printed from rank 8 down
    return [PIECE_VALUES[piece_type] + table[square ^ flip] for square in chess.SQUARES]


_VALUES = {
    (piece_type, color): _square_values(piece_type, color, table)
    for piece_type, table in _TABLES.items()
    for color in chess.COLORS
}
_KING_VALUES = {
    (endgame, color): _square_values(chess.KING, color, table)
    for endgame, table in ((False, _KING_MIDDLEGAME), (True, _KING_ENDGAME))
    for color in chess.COLORS
}


def _is_endgame(board: chess.Board) -> bool:
    for color in chess.COLORS:
        material = sum(
            PIECE_VALUES[p] * chess.popcount(board.pieces_mask(p, color)) for p in _MINOR_AND_MAJOR
        )
        if material > _ENDGAME_MATERIAL:
            return False
    return True


def evaluate(board: chess.Board) -> int:
    """Centipawns from White's point of view; ±MATE_SCORE when a side is checkmated."""
    if board.is_checkmate():
        return -MATE_SCORE if board.turn == chess.WHITE else MATE_SCORE
    return _static(board)


def _static(board: chess.Board) -> int:
    endgame = _is_endgame(board)
    score = 0
    for color in chess.COLORS:
        sign = 1 if color == chess.WHITE else -1
        for piece_type in _TABLES:
            values = _VALUES[piece_type, color]
            mask = board.pieces_mask(piece_type, color)
            score += sign * sum(values[sq] for sq in chess.scan_forward(mask))
        king = board.king(color)
        if king is not None:
            score += sign * _KING_VALUES[endgame, color][king]
    return score


def _relative(board: chess.Board) -> int:
    score = _static(board)
    return score if board.turn == chess.WHITE else -score


def _order_key(board: chess.Board, move: chess.Move) -> int:
    """Promotions and captures of big pieces by small ones first (MVV-LVA)."""
    key = 0
    if move.promotion:
        key += PIECE_VALUES[move.promotion]
    if board.is_capture(move):
        victim = board.piece_type_at(move.to_square) or chess.PAWN  # en passant
        attacker = board.piece_type_at(move.from_square) or chess.PAWN
        key += 10 * PIECE_VALUES[victim] - PIECE_VALUES[attacker]
    return key


def _ordered(board: chess.Board, moves: list[chess.Move]) -> list[chess.Move]:
    return sorted(moves, key=lambda m: _order_key(board, m), reverse=True)


def _quiescence(board: chess.Board, alpha: int, beta: int, depth: int) -> int:
    stand_pat = _relative(board)
    if depth == 0 or stand_pat >= beta:
        return stand_pat
    alpha = max(alpha, stand_pat)
    captures = [m for m in board.generate_legal_captures()]
    for move in _ordered(board, captures):
        board.push(move)
        score = -_quiescence(board, -beta, -alpha, depth - 1)
        board.pop()
        if score >= beta:
            return score
        alpha = max(alpha, score)
    return alpha


def _negamax(board: chess.Board, depth: int, alpha: int, beta: int, ply: int) -> int:
    moves = list(board.legal_moves)
    if not moves:
        return -MATE_SCORE + ply if board.is_check() else 0
    if board.is_insufficient_material():
        return 0
    if depth == 0:
        return _quiescence(board, alpha, beta, QUIESCENCE_DEPTH)
    best = -MATE_SCORE - 1
    for move in _ordered(board, moves):
        board.push(move)
        score = -_negamax(board, depth - 1, -beta, -alpha, ply + 1)
        board.pop()
        best = max(best, score)
        alpha = max(alpha, score)
        if alpha >= beta:
            break
    return best


def best_move(board: chess.Board, depth: int, rng: random.Random) -> chess.Move:
    """The move alpha-beta search prefers at ``depth`` plies; ties broken by ``rng``."""
    if depth < 1:
        raise ValueError(f"search depth must be at least 1, got {depth}")
    work = board.copy()
    moves = list(work.legal_moves)
    if not moves:
        raise ValueError("no legal moves: the game is over")
    rng.shuffle(moves)
    alpha, beta = -MATE_SCORE - 1, MATE_SCORE + 1
    chosen = moves[0]
    for move in _ordered(work, moves):
        work.push(move)
        score = -_negamax(work, depth - 1, -beta, -alpha, 1)
        work.pop()
        if score > alpha:
            alpha, chosen = score, move
    return chosen
