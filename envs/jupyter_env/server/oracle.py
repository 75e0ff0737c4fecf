"""Jupyter's oracle: a task injected through the ``verify`` reset option (the notebook must
leave ``result.txt`` holding the square of 12), solved in a code cell, then submitted: every
verify command passes, 1.0.

Score: the final reward. The playground's buttons (arithmetic, a shell listing, an answer
submitted at once) never write the file; canaries submit without working and run nothing.
The verify commands are shown to the agent, so the task has no hidden answer to leak.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

VERIFY = 'test "$(cat result.txt)" = 144'
SOLVE = "from pathlib import Path\nPath('result.txt').write_text(str(12 ** 2))"


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": tool, "arguments": arguments}


class JupyterOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    form = "injected_state"
    reset_options = {"verify": [VERIFY]}
    max_steps = 4
    probe_steps = 4

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if env.state.step_count == 0:
            return _call("add_and_execute_code_cell", code=SOLVE)
        return _call("final_answer", answer="144")

    def canaries(self) -> list[Canary]:
        return [
            Canary.sequence(
                "claim_done", "submits without working", [_call("final_answer", answer="144")]
            ),
            Canary.repeat(
                "empty_cell", "runs an empty cell", _call("add_and_execute_code_cell", code="")
            ),
        ]


ORACLE = JupyterOracle()
