"""Reasoning gym's reward, explained: the question's dataset scores the answer.

One component, ``correctness`` (weight 1): ``dataset.score_answer(answer, entry)``, 0..1; some
datasets give partial credit. The rubric asks the environment for the current question, so it
scores exactly what the observation reports in ``score``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openenv.core.rubrics import Rubric, WeightedSum

Question = tuple[Any, dict[str, Any]]  # (reasoning-gym dataset, entry)


def score_answer(question: Question, answer: str) -> float:
    """The dataset's own score of ``answer`` to the entry, 0..1."""
    dataset, entry = question
    return float(dataset.score_answer(answer=answer, entry=entry))


class Correctness(Rubric):
    """The dataset's ``score_answer`` of the submitted answer to the current question."""

    def __init__(self, question: Callable[[], Question]) -> None:
        super().__init__()
        self.question = question

    def forward(self, action: Any, observation: Any) -> float:
        return score_answer(self.question(), action.answer)


def reasoning_gym_rubric(question: Callable[[], Question]) -> WeightedSum:
    """The reward of an answer; ``question()`` gives the current (dataset, entry)."""
    return WeightedSum({"correctness": Correctness(question)}, {"correctness": 1.0})
