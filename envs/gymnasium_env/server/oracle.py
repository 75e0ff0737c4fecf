"""Gymnasium's oracle, for its default CartPole-v1: push the cart towards where the pole falls
(pole angle plus a share of its angular velocity). It balances for the whole 200-step budget.

Score: the return over the budget divided by 200 (1.0 for the oracle; a random or constant
push drops the pole within a few dozen steps). Canaries send actions outside the space
(refused).
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

HORIZON = 200


class GymnasiumOracle(Oracle):
    score_range = (0.0, 1.0)
    tolerance = 0.0
    floor_margin = 0.5
    reset_options = {"env_id": "CartPole-v1", "render_mode": "none"}
    max_steps = HORIZON
    probe_steps = 20

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        _, _, angle, spin = observation.observation
        return {"action": 1 if angle + 0.5 * spin > 0 else 0}

    def score(self, rewards: Any) -> float:
        return round(sum(rewards) / HORIZON, 6)

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("out_of_space", "action 7 of a two-action space", {"action": 7}),
            Canary.repeat("wrong_type", "a word for an integer action", {"action": "left"}),
        ]


ORACLE = GymnasiumOracle()
