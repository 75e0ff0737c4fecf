"""Snake's oracle: breadth-first search from the head to the food around the body, three times.

Score: the food eaten (the episode's return: +1 a food, -1 on death), up to 3, the oracle's
goal. A random snake rarely eats three before it dies; one that keeps going up hits the wall.
Canaries turn straight back into the neck (refused) or name no direction.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from openenv.validation.oracle import Canary, Oracle
from snake_env.server.environment import _DELTAS, _OPPOSITE

GOAL = 3


class SnakeOracle(Oracle):
    score_range = (-1.0, float(GOAL))
    floor_margin = 1.5
    max_steps = 120
    probe_steps = 20

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if env.state.episode_fruits >= GOAL:
            return None
        head, food = env._body[0], env._food
        for first in _path(env, head, food) or [_safe(env, head)]:
            return {"action": first.value}
        return None

    def score(self, rewards: Any) -> float:
        return min(float(sum(rewards)), float(GOAL))

    def canaries(self) -> list[Canary]:
        return [
            Canary("reverse", "turns straight back into its neck", _reverse),
            Canary.repeat("no_direction", "an action naming no direction", {"action": "NORTH"}),
        ]


def _path(env: Any, head: Any, food: Any) -> list[Any]:
    body = set(list(env._body)[:-1])
    back = _OPPOSITE[env.state.direction]
    seen = {head: []}
    queue = deque([head])
    while queue:
        cell = queue.popleft()
        if cell == food:
            return seen[cell]
        for d, (dc, dr) in _DELTAS.items():
            if cell == head and d == back:
                continue
            nxt = (cell[0] + dc, cell[1] + dr)
            if nxt not in seen and env._inside(nxt) and nxt not in body:
                seen[nxt] = [*seen[cell], d]
                queue.append(nxt)
    return []


def _safe(env: Any, head: Any) -> Any:
    back = _OPPOSITE[env.state.direction]
    for d, (dc, dr) in _DELTAS.items():
        if d != back and not env._kills((head[0] + dc, head[1] + dr)):
            return d
    return env.state.direction


def _reverse(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    return {"action": _OPPOSITE[env.state.direction].value}


ORACLE = SnakeOracle()
