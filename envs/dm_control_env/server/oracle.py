"""dm_control's oracle, for its default cartpole/balance: a linear controller on the cart's
position and speed and the pole's angle (its sine) and spin keeps the pole up and centred.

Score: the mean reward over a 200-step horizon (1.0 for the oracle; a random or constant push
lets the pole swing). Canaries send the wrong number of values and values past [-1, 1]
(refused).
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

HORIZON = 200
GAINS = (0.5, 10.0, 0.5, 1.0)  # cart position, sin(angle), cart speed, pole spin


class DMControlOracle(Oracle):
    score_range = (0.0, 1.0)
    tolerance = 0.01
    floor_margin = 0.3
    reset_options = {"domain_name": "cartpole", "task_name": "balance"}
    max_steps = HORIZON
    probe_steps = 10

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        x, _, sine = observation.observations["position"]
        speed, spin = observation.observations["velocity"]
        push = sum(g * v for g, v in zip(GAINS, (x, sine, speed, spin), strict=True))
        return {"values": [max(-1.0, min(1.0, push))]}

    def score(self, rewards: Any) -> float:
        return round(sum(rewards) / HORIZON, 6)

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("wrong_length", "two values for one actuator", {"values": [0.0, 0.0]}),
            Canary.repeat("out_of_range", "a push past the actuator's range", {"values": [9.0]}),
        ]


ORACLE = DMControlOracle()
