"""Connect Four's oracle: a 4-ply negamax (the env's own search) against the 2-ply opponent.

All validation episodes play the built-in ``search`` opponent at depth 2, which takes a win
when it sees one and blocks the agent's: a random or null agent loses (-1), the oracle wins
(+1). Canaries name columns that do not exist: refused.
"""

from __future__ import annotations

from typing import Any

from connect4_env.server.search import best_column
from openenv.validation.oracle import Canary, Oracle


class Connect4Oracle(Oracle):
    score_range = (-1.0, 1.0)
    floor_margin = 1.0
    reset_options = {"opponent": "search", "depth": 2, "agent_starts": True}
    max_steps = 30

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        board = [row[:] for row in env.state.board]
        return {"column": best_column(board, 1, 4)}

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("off_board", "a column past the board", {"column": 7}),
            Canary.repeat("negative", "a column before the first", {"column": -1}),
        ]


ORACLE = Connect4Oracle()
