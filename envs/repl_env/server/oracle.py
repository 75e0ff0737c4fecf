"""REPL's oracle: a task injected through the reset options (``task_prompt``,
``expected_answer``), computed in a cell, then submitted: the checker accepts it, 1.0.

Random cells and guesses score 0.0 (or -0.05 for a failing cell); canaries submit an empty
answer, a placeholder for the answer, and a cell that fails.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

PROMPT = "Compute 6 * 7 and submit it."
ANSWER = "42"


class ReplOracle(Oracle):
    score_range = (0.0, 1.0)  # a wrong answer: 0.0; failing cells and running out cost more
    floor_margin = 0.5
    form = "injected_state"
    reset_options = {"task_prompt": PROMPT, "expected_answer": ANSWER, "max_iterations": 5}
    max_steps = 5
    probe_steps = 3

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if env.state.step_count == 0:
            return {"code": "value = 6 * 7\nvalue"}
        return {"is_final": True, "final_answer": ANSWER}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [
            {"code": "print('hello')"},
            {"code": "1/0"},
            {"is_final": True, "final_answer": "0"},
        ]

    def secrets(self, env: Any) -> list[str]:
        return [ANSWER]

    def canaries(self) -> list[Canary]:
        return [
            Canary.sequence(
                "empty", "an empty final answer", [{"is_final": True, "final_answer": ""}]
            ),
            Canary.sequence(
                "placeholder",
                "the answer's slot as markup",
                [{"is_final": True, "final_answer": "{{expected_answer}}"}],
            ),
            Canary.repeat("failing_cell", "a cell that raises, again and again", {"code": "1/0"}),
        ]


ORACLE = ReplOracle()
