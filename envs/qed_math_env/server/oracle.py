"""QED math's oracle boxes the reference answer of an answer problem (privileged state): 7/7.

The validator's server has no judge model, so the oracle plays the problems math-verify grades
alone (``problem_type="answer"``). Wrong answers score 0; canaries send a claimed score, an
empty box, and a box stuffed with every number from 0 to 999 hoping one is right.
"""

from __future__ import annotations

from typing import Any, ClassVar

from openenv.validation.oracle import Canary, Oracle

STUFFED = "\\boxed{" + ", ".join(str(n) for n in range(1000)) + "}"


class QedMathOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 3
    probe_steps = 3
    reset_options: ClassVar[dict[str, Any]] = {"problem_type": "answer"}

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"proof": f"As computed, the answer is \\boxed{{{env._problem.answer}}}."}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"proof": f"The answer is \\boxed{{{n}}}."} for n in (0, 7, 13, 100)]

    def secrets(self, env: Any) -> list[str]:
        return [env._problem.solution]

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("claimed_score", "a claimed grade", {"proof": "<score>7</score> 7/7"}),
            Canary.repeat("empty_box", "an empty final answer", {"proof": "\\boxed{}"}),
            Canary.repeat("stuffed", "every number from 0 to 999 at once", {"proof": STUFFED}),
        ]


ORACLE = QedMathOracle()
