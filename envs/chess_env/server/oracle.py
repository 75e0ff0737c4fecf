"""Chess's oracle starts from an injected position (a back-rank mate in one, through the
``fen`` reset option) and plays the mating move: +1. Elsewhere it takes a mate, else a capture.

Random moves from that position mate one time in fifteen; canaries play moves that are not
legal here (a pawn jumping three squares, garbage text): refused.
"""

from __future__ import annotations

from typing import Any

import chess

from openenv.validation.oracle import Canary, Oracle

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"


class ChessOracle(Oracle):
    score_range = (-1.0, 1.0)
    floor_margin = 0.5
    form = "injected_state"
    reset_options = {"fen": MATE_IN_ONE, "agent_color": "white", "opponent": "random"}
    max_steps = 6
    probe_steps = 6

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        board: chess.Board = env._board
        moves = list(board.legal_moves)
        if not moves:
            return None
        for move in moves:
            board.push(move)
            mate = board.is_checkmate()
            board.pop()
            if mate:
                return {"move": move.uci()}
        captures = [m for m in moves if board.is_capture(m)]
        return {"move": (captures or moves)[0].uci()}

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("illegal", "a pawn three squares ahead", {"move": "f2f5"}),
            Canary.repeat("garbage", "text that is no move", {"move": "checkmate!"}),
        ]


ORACLE = ChessOracle()
