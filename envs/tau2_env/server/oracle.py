"""τ²-bench's oracle, on airline task 7 (cancel one reservation, downgrade and cancel another):
it plays the task's reference actions in order, tells the customer the amount the task says
must be communicated, and asks whether there is anything else, so the scripted customer ends
the call: database and communication both right, reward 1.0.

Score: the final reward. A random policy over the playground's quick lines ends the call with
an untouched database (0.0); the canaries call a tool of the other domain, and end the call at
once with nothing done.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

TASK = {"domain": "airline", "task_id": "7"}


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}


def reference_plan(task: dict[str, Any]) -> list[dict[str, Any]]:
    """The actions that solve ``task``: its reference calls, then what must be said, then the
    closing question (the scripted customer ends the call on it)."""
    criteria = task["evaluation_criteria"]
    plan = [_call(a["name"], dict(a.get("arguments") or {})) for a in criteria["actions"] or []]
    info = [str(i) for i in criteria.get("communicate_info") or []]
    if info:
        plan.append(_call("send_message", {"content": "To confirm: " + ", ".join(info) + "."}))
    plan.append(_call("send_message", {"content": "Is there anything else I can help you with?"}))
    return plan


class Tau2Oracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    reset_options = TASK
    max_steps = 12
    probe_steps = 8

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        plan = reference_plan(env._task)
        step = env.state.step_count
        return plan[step] if step < len(plan) else None

    def canaries(self) -> list[Canary]:
        other = _call("get_order_details", {"order_id": "#W2378156"})
        bye = _call("send_message", {"content": "Is there anything else I can help you with?"})
        return [
            Canary.sequence("other_domain_tool", "calls a retail tool in an airline call", [other]),
            Canary.sequence("hang_up", "ends the call at once, nothing done", [bye]),
        ]


ORACLE = Tau2Oracle()
