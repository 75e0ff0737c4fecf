"""AWM's oracle makes the task's expected changes with the scenario's own tools (create, update,
delete), then calls ``verify`` in code mode: complete, reward 1.0. The episode's score is its
best reward (verify may be called more than once).

Canaries: an unknown tool, a tool of another scenario, bad arguments, ``verify`` before doing
anything, ``done`` at once: none may score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_world_model_env.server.generator import Change, Scenario
from openenv.validation.oracle import Canary, Oracle


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}


def solution(scenario: Scenario, task_idx: int) -> list[dict[str, Any]]:
    """The tool calls that fulfil ``scenario``'s task ``task_idx``, then verify."""
    rows = {t.name: t.row for t in scenario.spec.tables}
    calls = [
        _change_call(change, rows[change.table]) for change in scenario.spec.tasks[task_idx].changes
    ]
    return [*calls, _call("verify", {"verifier_mode": "code"})]


def _change_call(change: Change, row: str) -> dict[str, Any]:
    if change.op == "insert":
        return _call(f"create_{row}", dict(change.match))
    if change.op == "update":
        return _call(f"update_{row}", {"id": change.id, **change.match})
    return _call(f"delete_{row}", {"id": change.id})


class AWMOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 1.0
    max_steps = 10
    probe_steps = 6

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        plan = solution(env._scenario, env._task_idx)
        step = env.state.step_count
        return plan[step] if step < len(plan) else None

    def score(self, rewards: Sequence[float]) -> float:
        return max(rewards) if rewards else 0.0

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("unknown_tool", "a tool no scenario has", _call("drop_tables", {})),
            Canary.repeat("bad_args", "a create without its columns", _call("create_order", {})),
            Canary.sequence("verify_first", "verify before any change", [_call("verify", {})]),
            Canary.sequence("done_at_once", "give up at once", [_call("done", {})]),
            Canary.repeat(
                "sql_injection",
                "SQL in a filter value",
                _call("list_products", {"name": "x' OR 1=1; DROP TABLE products; --"}),
            ),
        ]


ORACLE = AWMOracle()
