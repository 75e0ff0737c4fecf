"""2048's oracle: a one-move lookahead that keeps the board empty, ordered and its largest tile
in a corner; it reaches the 256 tile (``target=256``) that random sliding does not.

Score: 1.0 when the episode ends with the target tile (``won``), else 0.0. Canaries slide in
a direction that changes nothing (refused) or name no direction at all.
"""

from __future__ import annotations

from typing import Any

from game_2048_env.server.tiles import legal_directions, slide
from openenv.validation.oracle import Canary, Oracle

TARGET = 256


class Game2048Oracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    reset_options = {"target": TARGET}
    max_steps = 600
    probe_steps = 20

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        board = env.state.board
        moves = legal_directions(board)
        if not moves:
            return None
        best = max(moves, key=lambda d: _value(*slide(board, d)))
        return {"action": getattr(best, "value", best)}

    def score_episode(self, episode: Any) -> float:
        played = episode.played
        return 1.0 if played and (played[-1].observation or {}).get("won") else 0.0

    def canaries(self) -> list[Canary]:
        return [
            Canary("no_change", "slides where nothing moves (refused)", _blocked),
            Canary.repeat(
                "no_direction", "an action that names no direction", {"action": "NOWHERE"}
            ),
        ]


def _value(board: Any, points: int) -> float:
    empty = sum(v == 0 for row in board for v in row)
    top = max(max(row) for row in board)
    corner = top if board[-1][0] == top else 0
    ordered = sum(row[i] >= row[i + 1] for row in board for i in range(len(row) - 1))
    return points + 12 * empty + 2 * corner + 4 * ordered


def _blocked(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    legal = {getattr(d, "value", d) for d in legal_directions(env.state.board)}
    stuck = [d for d in ("UP", "DOWN", "LEFT", "RIGHT") if d not in legal]
    return {"action": stuck[0]} if stuck else None


ORACLE = Game2048Oracle()
