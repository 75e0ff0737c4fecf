"""One attempt graded against a problem's rubric: answer items by math-verify, proof items by
the server's grader. Pure of the environment: (problem, solution, grader, checker) -> Attempt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from qed_math_env.models import RubricMark
from qed_math_env.server.answers import AnswerChecker, Verdict, last_boxed
from qed_math_env.server.graders import GradingError, ProofGrade
from qed_math_env.server.problems import ANSWER, Problem

THINK_END = "</think>"  # reasoning before it is dropped before grading


class Grader(Protocol):
    name: str

    def grade(self, problem: Problem, proof: str, indices: list[int]) -> ProofGrade: ...


@dataclass
class Attempt:
    """What one solution earned; ``error`` set means the proof items could not be graded."""

    marks: list[RubricMark] = field(default_factory=list)
    final_answer: str | None = None
    answer_correct: bool | None = None
    feedback: str = ""
    error: str | None = None

    @property
    def graded(self) -> bool:
        return self.error is None

    @property
    def answer_points(self) -> int:
        """Points math-verify gave (0 when the attempt could not be graded as a whole)."""
        if not self.graded:
            return 0
        return sum(m.points or 0 for m in self.marks if m.graded_by == "math-verify")

    @property
    def proof_points(self) -> int:
        """Points the proof grader gave."""
        return (self.score or 0) - self.answer_points

    @property
    def score(self) -> int | None:
        return sum(m.points or 0 for m in self.marks) if self.graded else None


def strip_reasoning(text: str) -> str:
    """The solution after the last ``</think>`` (a model's private reasoning is not graded)."""
    return text.rsplit(THINK_END, 1)[-1].strip()


def grade_attempt(
    problem: Problem, solution: str, grader: Grader, checker: AnswerChecker
) -> Attempt:
    """Mark every rubric item of ``problem`` for ``solution``."""
    text = strip_reasoning(solution)
    attempt = Attempt()
    verdict = _check_answer(problem, text, checker, attempt)
    proof_items = [i for i, item in enumerate(problem.items) if item.check != ANSWER]
    grade = ProofGrade({}, "")
    if proof_items:
        try:
            grade = grader.grade(problem, text, proof_items)
        except GradingError as exc:
            attempt.error = str(exc)
    attempt.feedback = grade.feedback
    for i, item in enumerate(problem.items):
        if item.check == ANSWER:
            points = item.points if verdict and verdict.correct else 0
            note = verdict.note if verdict else ""
            mark = RubricMark(title=item.title, max_points=item.points, points=points,
                              graded_by="math-verify", note=note)  # fmt: skip
        else:
            got = grade.items.get(i)
            mark = RubricMark(
                title=item.title, max_points=item.points, graded_by=grader.name,
                points=got.points if got else None, note=got.note if got else "not graded",
            )  # fmt: skip
        attempt.marks.append(mark)
    return attempt


def _check_answer(
    problem: Problem, text: str, checker: AnswerChecker, attempt: Attempt
) -> Verdict | None:
    if problem.answer is None:
        return None
    boxed = last_boxed(text)
    attempt.final_answer = boxed
    if boxed is None:
        verdict = Verdict(False, "no \\boxed{...} final answer found")
    else:
        verdict = checker.check(problem.answer, boxed)
    attempt.answer_correct = verdict.correct
    return verdict
