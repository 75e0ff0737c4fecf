"""The REPL's reward, explained, after the reference's ``REPLRubric``.

Three components (weight 1 each), of which at most one is non-zero on a step:

* ``outcome``: at the end of an episode with an answer, 1.0 when the task's checker accepted
  it (the expected value, or every hidden test passed), else 0.0;
* ``code_execution``: on a step that does not end the episode, -0.05 when the cell failed
  (an exception, a limit), else 0.0;
* ``max_iterations``: -0.1 when the episode ran out of steps without an answer.

The checker runs in the environment, which writes its verdict to ``metadata["correct"]``; the
rubric only reads the observation. Pass your own to ``REPLEnvironment(rubric=...)``.
"""

from __future__ import annotations

from typing import Any

from openenv.core.rubrics import Rubric, WeightedSum

ERROR_PENALTY = -0.05
FAILURE_PENALTY = -0.1


class Outcome(Rubric):
    """1.0 for an accepted final answer, else 0.0."""

    def forward(self, action: Any, observation: Any) -> float:
        return 1.0 if observation.done and observation.metadata.get("correct") else 0.0


class CodeExecution(Rubric):
    """A small penalty for a failing cell before the end."""

    def __init__(self, error_penalty: float = ERROR_PENALTY) -> None:
        super().__init__()
        self.error_penalty = error_penalty

    def forward(self, action: Any, observation: Any) -> float:
        failed = not observation.done and not observation.result.success
        return self.error_penalty if failed else 0.0


class MaxIterations(Rubric):
    """A penalty for running out of steps without answering."""

    def __init__(self, penalty: float = FAILURE_PENALTY) -> None:
        super().__init__()
        self.penalty = penalty

    def forward(self, action: Any, observation: Any) -> float:
        unanswered = observation.done and observation.metadata.get("final_answer") is None
        return self.penalty if unanswered else 0.0


def repl_rubric() -> WeightedSum:
    """The default reward: outcome + code_execution + max_iterations."""
    return WeightedSum(
        {"outcome": Outcome(), "code_execution": CodeExecution(), "max_iterations": MaxIterations()}
    )
