"""tbench2_env's oracle, on its default task (hello-world): it writes the greeting with one
command, as the task's solution.sh does, then evaluates: both tests pass, 1.0.

Canaries: evaluating at once (the file is not there: 0.0), and an empty command first.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

SOLVE = {"action_type": "exec", "command": "echo 'Hello, world!' > /app/hello.txt"}
EVALUATE = {"action_type": "evaluate"}


class Tbench2Oracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    reset_options = {"task_id": "hello-world"}
    max_steps = 4
    probe_steps = 4

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return SOLVE if env.state.step_count == 0 else EVALUATE

    def canaries(self) -> list[Canary]:
        return [
            Canary.sequence("claim_done", "evaluates without doing the task", [EVALUATE]),
            Canary.sequence(
                "empty",
                "an empty command, then evaluates",
                [{"action_type": "exec", "command": ""}, EVALUATE],
            ),
        ]


ORACLE = Tbench2Oracle()
