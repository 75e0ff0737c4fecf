"""Terminus's oracle, for its default task (hello_file): it writes the greeting into ~/hello.txt
with one shell command, then submits: the task's check passes, 1.0.

Score: the final reward. Random commands from the playground's buttons never write the file;
canaries submit at once without doing the work, and submit an empty command.
"""

from __future__ import annotations

import shlex
from typing import Any

from openenv.validation.oracle import Canary, Oracle
from terminus_env.server.tasks import GREETING

WRITE = f"printf '%s\\n' {shlex.quote(GREETING)} > ~/hello.txt"


def _terminal(**arguments: Any) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": "terminal", "arguments": arguments}


class TerminusOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    reset_options = {"task": "hello_file"}
    max_steps = 4
    probe_steps = 4

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if env.state.step_count == 0:
            return _terminal(command=WRITE)
        return _terminal(final_answer="done")

    def canaries(self) -> list[Canary]:
        return [
            Canary.sequence(
                "claim_done", "submits 'done' without doing it", [_terminal(final_answer="done")]
            ),
            Canary.repeat("empty", "an empty command", _terminal(command="")),
        ]


ORACLE = TerminusOracle()
