"""coding_tools_env's oracle, on its default task (fix_add): it edits calc.py's ``a - b`` into
``a + b`` and submits: both verify commands pass, 1.0.

Canaries: submitting at once (the bug is still there: 0/2), and a refused call (an edit of a
string that is not in the file) before submitting.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

CALC = "/home/user/work/calc.py"


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}


FIX = _call("edit", file_path=CALC, old_string="return a - b", new_string="return a + b")


class CodingToolsOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    reset_options = {"task": "fix_add"}
    max_steps = 4
    probe_steps = 4

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if env.state.step_count == 0:
            return FIX
        return _call("submit_solution")

    def canaries(self) -> list[Canary]:
        wrong = _call("edit", file_path=CALC, old_string="no such text", new_string="x")
        return [
            Canary.sequence(
                "claim_done", "submits without fixing the bug", [_call("submit_solution")]
            ),
            Canary.sequence(
                "bad_edit",
                "an edit that matches nothing, then submits",
                [wrong, _call("submit_solution")],
            ),
        ]


ORACLE = CodingToolsOracle()
