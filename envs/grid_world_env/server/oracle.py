"""Grid world's oracle: the shortest walk to the goal (down, then right), 8 moves.

Score: the episode's return (-0.1 per move, +1.0 on the goal): 0.3 for the oracle. A random or
null walk of at most 50 moves scores far less; walking into a wall forever is the floor (-5).
"""

from __future__ import annotations

from typing import Any

from grid_world_env.server.environment import GOAL
from openenv.validation.oracle import Canary, Oracle


class GridWorldOracle(Oracle):
    score_range = (-5.0, 0.3)
    tolerance = 1e-6
    floor_margin = 1.0
    max_steps = 50
    probe_steps = 20

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        s = env.state
        if s.x < GOAL[0]:
            return {"action": "DOWN"}
        if s.y < GOAL[1]:
            return {"action": "RIGHT"}
        return None

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("wall", "walks into the top wall forever", {"action": "UP"}),
            Canary.repeat("unknown_move", "an action outside the enum", {"action": "JUMP"}),
        ]

    def score(self, rewards: Any) -> float:
        return round(sum(rewards), 6)


ORACLE = GridWorldOracle()
