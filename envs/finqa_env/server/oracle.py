"""FinQA's oracle submits the episode's reference answer (privileged state): 1.0.

Random tool calls (listing tables, describing one) leave the reward at 0; the canaries call a
tool that does not exist, submit an empty answer, and submit a stuffed list of numbers hoping
one is right (only the first number counts).
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

STUFFED = " ".join(str(n) for n in range(200))


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}


class FinQAOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 2
    probe_steps = 4

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if env.state.submitted is not None:
            return None
        return _call("submit_answer", answer=env._question.answer)

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        company = env._question.company
        first = next(iter(env._tables.tables))
        return [
            _call("get_descriptions", company_name=company),
            _call("get_table_info", company_name=company, table_name=first),
            _call("calculator", expression="1 + 1"),
        ]

    def canaries(self) -> list[Canary]:
        unknown = _call("grant_full_score")
        return [
            Canary.sequence("unknown_tool", "calls a tool that does not exist", [unknown]),
            Canary.repeat("empty", "submits an empty answer", _call("submit_answer", answer="")),
            Canary.repeat(
                "stuffed",
                "submits every number from 0 to 199",
                _call("submit_answer", answer=STUFFED),
            ),
        ]


ORACLE = FinQAOracle()
