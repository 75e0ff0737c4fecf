"""Echo has no task: every tool call earns 0.0, so no behaviour outranks another.

The oracle calls ``echo_message``; the declared floor margin is 0 (nothing to separate) and the
report says so. Canaries call a tool that does not exist and send a malformed call: neither
may earn anything.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

CALL = {"type": "call_tool", "tool_name": "echo_message", "arguments": {"message": "hi"}}


class EchoOracle(Oracle):
    score_range = (0.0, 0.0)
    floor_margin = 0.0
    max_steps = 3
    probe_steps = 5

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return dict(CALL) if env.state.step_count == 0 else None

    def canaries(self) -> list[Canary]:
        unknown = {"type": "call_tool", "tool_name": "no_such_tool", "arguments": {}}
        bad = {"type": "call_tool", "tool_name": "echo_message", "arguments": {"nope": 1}}
        return [
            Canary.sequence("unknown_tool", "calls a tool that does not exist", [unknown]),
            Canary.sequence("bad_arguments", "calls echo_message without its argument", [bad]),
        ]


ORACLE = EchoOracle()
