"""The Harbor environment's validator facts: a rollout of mini-swe-agent on the shipped
``hello-file`` task, played by the scripted TEST engine (it replays the task's solution), earns
the verifier's 1.0; capabilities and refused calls earn 0.0.

The oracle needs the process sandbox and mini-swe-agent installed (``openenv harbor install
mini-swe-agent``); where either is missing it says so and does not run. A rollout's ids, timings
and logs differ between two runs of the same episode: they are wall-clock fields here.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

SPLIT = "shipped"
TASK = "hello-file"


def _rollout(env: Any, **arguments: Any) -> dict[str, Any]:
    index = next(c["index"] for c in env.service.tasks(SPLIT) if c["name"] == TASK)
    return {
        "type": "call_tool",
        "tool_name": "run_rollout",
        "arguments": {"split": SPLIT, "task_index": index, **arguments},
    }


CAPABILITIES = {"type": "call_tool", "tool_name": "capabilities", "arguments": {}}
_DATA = "result.data"


class HarborOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 1.0
    max_steps = 3
    probe_steps = 4
    scope = "the shipped hello-file task, mini-swe-agent in the process sandbox, TEST engine"
    wall_clock_fields = (
        "result.content",
        "result.structured_content",
        *(
            f"{_DATA}.{name}"
            for name in (
                "trial_name",
                "session_id",
                "run_id",
                "wall_s",
                "phase_timings",
                "agent_log_tail",
                "verifier_output",
                "turns",
                "conversations",
            )
        ),
    )

    def unavailable(self) -> str | None:
        from openenv.core.harness.harnesses import get_harness
        from openenv.sandbox.isolation import SandboxUnavailable, isolation

        try:
            isolation(network=True)
        except SandboxUnavailable as exc:
            return f"no process sandbox here: {str(exc).splitlines()[0]}"
        return get_harness("mini-swe-agent").problem()

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return _rollout(env) if env.state.step_count == 0 else None

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [dict(CAPABILITIES), _rollout(env, sandbox="e2b")]

    def canaries(self) -> list[Canary]:
        unknown = {"type": "call_tool", "tool_name": "no_such_tool", "arguments": {}}
        no_split = {
            "type": "call_tool",
            "tool_name": "run_rollout",
            "arguments": {"split": "no-such-split", "task_index": 0},
        }
        kept = {
            "type": "call_tool",
            "tool_name": "run_rollout",
            "arguments": {"split": SPLIT, "task_index": 0, "keep_sandbox": True},
        }
        return [
            Canary.sequence("unknown_tool", "calls a tool that does not exist", [unknown]),
            Canary.sequence("unknown_split", "asks for a split the server lacks", [no_split]),
            Canary.sequence("keep_sandbox", "asks to keep the sandbox (refused)", [kept]),
        ]


ORACLE = HarborOracle()
