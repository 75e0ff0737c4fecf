"""FinRL's oracle trades with foresight (privileged: it reads tomorrow's close from the env's
market): it buys each stock that will rise by more than the fees and sells the others.

Score: the episode's return as a share of :data:`GOAL` (a gain of 8% of the starting cash,
0.8 in reward units), capped at 1.0, in a ``bear`` market of 30 days: buying every day, or
trading at random, gains little there or loses. Canaries send
the wrong number of values and values outside [-1, 1] (refused).
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

GOAL = 0.8


class FinRLOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    form = "injected_state"
    reset_options = {"market": "bear", "episode_length": 30}
    max_steps = 40
    probe_steps = 10

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        close, day = env._market.close, env._state.day
        if day + 1 >= len(close):
            return None
        margin = 1.0 + 3 * env._fees.buy_cost_pct
        return {
            "actions": [
                1.0 if close[day + 1][i] > close[day][i] * margin else -1.0
                for i in range(close.shape[1])
            ]
        }

    def score(self, rewards: Any) -> float:
        return round(min(1.0, max(0.0, sum(rewards) / GOAL)), 6)

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("wrong_length", "one value for several stocks", {"actions": [1.0]}),
            Canary.repeat("out_of_range", "values past [-1, 1]", {"actions": [50.0, 50.0, 50.0]}),
        ]


ORACLE = FinRLOracle()
