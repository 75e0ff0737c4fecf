"""Maze's oracle: breadth-first search from the agent to the exit over the layout's open cells.

Score: the final reward (+10 on the exit; -0.05 a move, -0.25 a revisit otherwise). Random and
null walks rarely find the exit within the step budget; walking into a wall is refused.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from maze_env.server.environment import _DELTAS
from openenv.validation.oracle import Canary, Oracle


class MazeOracle(Oracle):
    score_range = (-0.25, 10.0)
    floor_margin = 5.0
    max_steps = 100

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        path = shortest_path(env._layout, env._pos)
        return {"action": path[0]} if path else None

    def canaries(self) -> list[Canary]:
        return [
            Canary("wall", "walks into a wall (an illegal move) at every step", _into_wall),
            Canary.repeat("out_of_range", "an action number past the four moves", {"action": 9}),
        ]


def _into_wall(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    blocked = [m for m in _DELTAS if m not in env.legal_moves()]
    return {"action": blocked[0]} if blocked else None


def shortest_path(layout: Any, start: tuple[int, int]) -> list[int]:
    """Moves (0..3) of a shortest path from ``start`` to ``layout.exit`` ([] when none)."""
    seen = {start: []}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == layout.exit:
            return seen[cell]
        for move, (dc, dr) in _DELTAS.items():
            nxt = (cell[0] + dc, cell[1] + dr)
            if nxt not in seen and layout.is_open(*nxt):
                seen[nxt] = [*seen[cell], move]
                queue.append(nxt)
    return []


ORACLE = MazeOracle()
