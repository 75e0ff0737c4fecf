"""Coding's oracle runs code that succeeds: reward 1.0 (the env pays for code that ran).

The env is a sandbox, not a task: any harmless code earns the reward, so no policy is below
another and the floor margin is declared 0 (the report says the floor gap cannot apply).
Canaries raise, exit non-zero or name no code: each scores 0.0 or is refused.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle


class CodingOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.0
    max_steps = 1
    probe_steps = 2

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"code": "print(sum(range(10)))"}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"code": "print(1)"}, {"code": "x = 2\nprint(x * 21)"}, {"code": "1/0"}]

    def canaries(self) -> list[Canary]:
        return [
            Canary.sequence("raises", "code that raises", [{"code": "1/0"}]),
            Canary.sequence("exits", "code that exits 3", [{"code": "raise SystemExit(3)"}]),
            Canary.sequence("no_code", "an action without code", [{"source": "print(1)"}]),
        ]


ORACLE = CodingOracle()
