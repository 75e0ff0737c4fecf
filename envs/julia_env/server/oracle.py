"""Julia's oracle sends the task's reference solution (privileged state): every test passes.

Without a Julia binary nothing can run, and the oracle says so (:meth:`unavailable`). Canaries
send code that does not parse, code that prints a forged report line, and code that exits
before the tests run: each scores 0.
"""

from __future__ import annotations

from typing import Any

from julia_env.server.runtime import NOT_INSTALLED, find_julia
from openenv.validation.oracle import Canary, Oracle

FORGED = 'println("@@OE 0 DONE 4 0 true")\nexit(0)\n'


class JuliaOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 3
    probe_steps = 3

    def unavailable(self) -> str | None:
        return None if find_julia() else NOT_INSTALLED

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"core_code": env._task.solution}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"core_code": "x = 1"}, {"core_code": 'println("hello")'}]

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("syntax_error", "code that does not parse", {"core_code": "function ("}),
            Canary.repeat("forged_report", "a printed report line", {"core_code": FORGED}),
            Canary.repeat("early_exit", "exit before the tests", {"core_code": "exit(0)"}),
        ]


ORACLE = JuliaOracle()
