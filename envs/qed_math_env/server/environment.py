"""QED Math: a math problem per episode, solutions graded on a 0–7 rubric, several attempts.

``reset`` picks a problem of the shipped set (:mod:`problems`): by ``problem_id``, or by the
seed among those of ``problem_type``. Each ``step`` sends a solution (``QedMathAction.proof``):
its rubric items are marked, answer items by math-verify (the last ``\\boxed{...}`` against the
reference answer), proof items by the server's grader (:mod:`graders`), and the observation
carries the marks per item, the grader's feedback and the attempts left. The reward is
``score / 7``, the sum of two components: the ``answer`` and ``proof`` points, each over 7.
The episode ends at 7/7 or after ``max_attempts`` graded attempts; the reference solution is
shown then. An attempt whose proof could not be graded (no judge configured, a judge error)
earns 0, does not count, and its observation says why. An empty solution is refused.
"""

from __future__ import annotations

import asyncio
import textwrap
import uuid
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from openenv.core import Environment, InvalidAction, Text
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from qed_math_env.models import MAX_SCORE, QedMathAction, QedMathObservation, QedMathState
from qed_math_env.server.answers import checker
from qed_math_env.server.graders import server_grader
from qed_math_env.server.grading import Attempt, Grader, grade_attempt
from qed_math_env.server.problems import BY_ID, PROBLEMS, Problem, answer_problem

MAX_ATTEMPTS = 10
PACKAGE_DIR = Path(__file__).resolve().parent.parent  # its tasks/ holds the shipped task files
# A row of a task file is an answer problem (math-verify checks the boxed final answer), in the
# column names of the usual math datasets (MATH, GSM8K, NuminaMath...).
TASK_ROWS = TaskRows(
    PACKAGE_DIR,
    TaskColumns(
        fields={
            "statement": ("problem", "question", "statement", "prompt"),
            "answer": ("answer", "final_answer", "expected_answer"),
            "solution": ("solution", "reference_solution"),
            "id": ("id", "problem_id", "unique_id"),
        },
        defaults={"solution": "", "id": None},
    ),
)
TaskSource, TaskRow = TASK_ROWS.options()


def row_problem(picked: PickedTask) -> Problem:
    """The answer problem a task row holds."""
    task = picked.task
    ident = str(task["id"] if task["id"] is not None else f"row-{picked.index}")[:100]
    return answer_problem(
        ident, str(task["statement"]), str(task["answer"]), str(task["solution"]), picked.source
    )


TEXT_WIDTH = 64


def wrap(text: str, indent: str = "", hang: str = "", width: int = TEXT_WIDTH) -> str:
    """``text`` wrapped at ``width`` columns, paragraph by paragraph; ``hang`` more indent on
    the lines that continue a paragraph (bullets)."""
    return "\n".join(
        textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent + hang)
        for line in text.splitlines()
    )


def pick_problem(rng, problem_id: str | None, problem_type: str) -> Problem:
    """The problem a reset asks for; InvalidAction names the choices."""
    if problem_id is not None:
        if problem_id not in BY_ID:
            raise InvalidAction(f"unknown problem_id {problem_id!r}; one of {', '.join(BY_ID)}")
        return BY_ID[problem_id]
    pool = [p for p in PROBLEMS if problem_type in ("any", p.kind)]
    return pool[rng.randrange(len(pool))]


class QedMathEnvironment(Environment[QedMathAction, QedMathObservation, QedMathState]):
    how_to_play = (
        "Write a solution in the box (the argument, and the final answer as \\boxed{...}) and "
        "press Send: each rubric item is marked, out of 7 points; you have a few attempts."
    )
    STEP_KIND = "io"  # a step may wait on the judge model or the math-verify helper

    def __init__(self, grader: Grader | None = None) -> None:
        self._grader = grader or server_grader()
        self._problem = PROBLEMS[0]
        self._attempt = Attempt()
        self._state = QedMathState(grader=self._grader.name)
        self._last = QedMathObservation()
        self.rubric = WeightedSum(
            {
                "answer": FnRubric(lambda a, o: self._attempt.answer_points / MAX_SCORE, "answer"),
                "proof": FnRubric(lambda a, o: self._attempt.proof_points / MAX_SCORE, "proof"),
            },
            {"answer": 1.0, "proof": 1.0},
        )

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        problem_id: str | None = None,
        problem_type: Literal["any", "answer", "proof", "proof_with_answer"] = "any",
        max_attempts: Annotated[int, Field(ge=1, le=MAX_ATTEMPTS)] = 3,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> QedMathObservation:
        picked = TASK_ROWS.pick(
            task_source, task_index, self.rng, "problem",
            problem_id=problem_id is not None, problem_type=problem_type != "any",
        )  # fmt: skip
        if picked is not None:
            self._problem = row_problem(picked)
        else:
            self._problem = pick_problem(self.rng, problem_id, problem_type)
        self._attempt = Attempt()
        self._state = QedMathState(
            episode_id=episode_id or str(uuid.uuid4()),
            problem_id=self._problem.id,
            problem_type=self._problem.kind,
            max_attempts=max_attempts,
            grader=self._grader.name,
        )
        self._last = self._observation(message="Write your solution and send it.")
        return self._last

    def step(self, action: QedMathAction) -> QedMathObservation:
        if not action.proof.strip():
            raise InvalidAction("the solution is empty: write your argument and final answer")
        attempt = grade_attempt(self._problem, action.proof, self._grader, checker())
        self._attempt = attempt
        self._state.step_count += 1
        if attempt.graded:
            self._state.attempts += 1
            self._state.best_score = max(self._state.best_score, attempt.score or 0)
        left = self._state.max_attempts - self._state.attempts
        done = attempt.score == MAX_SCORE or left == 0
        self._last = self._observation(
            proof=action.proof, attempt=attempt, done=done, message=_message(attempt, left, done)
        )
        self._last.metadata["verifier_metrics"] = verifier_metrics(attempt, self._state)
        return self._last

    async def step_async(self, action: QedMathAction) -> QedMathObservation:
        return await asyncio.to_thread(self.step, action)  # the judge may take seconds

    @property
    def state(self) -> QedMathState:
        return self._state

    def render(self) -> Text:
        return Text(render_text(self._problem, self._state, self._last))

    def _observation(
        self,
        message: str,
        proof: str | None = None,
        attempt: Attempt | None = None,
        done: bool = False,
    ) -> QedMathObservation:
        problem, state = self._problem, self._state
        attempt = attempt or Attempt()
        return QedMathObservation(
            problem=problem.statement,
            problem_id=problem.id,
            problem_type=problem.kind,
            dataset_source=problem.source,
            grading_guidelines=problem.guidelines(),
            proof=proof,
            final_answer=attempt.final_answer,
            answer_correct=attempt.answer_correct,
            score=attempt.score if proof is not None else None,
            marks=attempt.marks,
            feedback=attempt.feedback,
            is_correct=attempt.score == MAX_SCORE,
            grader=self._grader.name,
            attempt_number=state.attempts,
            attempts_remaining=state.max_attempts - state.attempts,
            reference_solution=problem.solution if done else None,
            message=message,
            done=done,
        )


def verifier_metrics(attempt: Attempt, state: QedMathState) -> dict[str, float]:
    """Numbers a trainer logs per attempt (TrackIO, W&B), named like QED-Nano's verifier's."""
    score = attempt.score or 0
    return {
        "verifier/rollouts/success": float(attempt.graded),
        "verifier/rollouts/failure": float(not attempt.graded),
        "verifier/failures/no_judge": float("no language model" in (attempt.error or "")),
        "verifier/answer/verified": float(bool(attempt.answer_correct)),
        "reward/score_raw": float(score),
        "reward/base": score / MAX_SCORE,
        "episode/attempt_number": float(state.attempts),
        "episode/is_correct": float(score == MAX_SCORE),
    }


def _message(attempt: Attempt, left: int, done: bool) -> str:
    if not attempt.graded:
        return f"Not graded, and not counted: {attempt.error}"
    head = f"{attempt.score}/{MAX_SCORE}."
    if attempt.score == MAX_SCORE:
        return f"{head} Full marks!"
    if done:
        return f"{head} No attempts left: the reference solution is below."
    return f"{head} {left} attempt{'s' if left != 1 else ''} left: read the marks and try again."


def render_text(problem: Problem, state: QedMathState, obs: QedMathObservation) -> str:
    """The stage: the problem, its rubric, the last attempt's marks and feedback."""
    parts = [
        f"QED Math · {problem.kind.replace('_', ' ')} · {problem.id}",
        f"Attempts {state.attempts}/{state.max_attempts} · best {state.best_score}/{MAX_SCORE}",
        wrap(f"Proofs graded by {state.grader}"),
        "",
        "PROBLEM",
        wrap(problem.statement, indent="  "),
        "",
        f"RUBRIC ({MAX_SCORE} points)",
        *(wrap(f"- {i.title} ({i.points} pt): {i.desc}", "  ", "  ") for i in problem.items),
    ]
    if obs.proof is not None:
        parts += ["", _score_line(obs)]
        for mark in obs.marks:
            got = "—" if mark.points is None else str(mark.points)
            sign = "✓" if mark.points == mark.max_points else "·" if mark.points is None else "✗"
            line = f"{sign} {mark.title}: {got}/{mark.max_points} · {mark.note}"
            parts.append(wrap(line, indent="  ", hang="  "))
        if obs.final_answer is not None:
            parts.append(wrap(f"Your final answer: {obs.final_answer}", "  ", "  "))
        if obs.feedback:
            parts += ["", "FEEDBACK", wrap(obs.feedback, indent="  ")]
    parts += ["", wrap(obs.message)]
    if obs.reference_solution:
        parts += ["", "REFERENCE SOLUTION", wrap(obs.reference_solution, indent="  ")]
    return "\n".join(parts)


def _score_line(obs: QedMathObservation) -> str:
    if obs.score is None:
        return "ATTEMPT NOT GRADED"
    return f"ATTEMPT {obs.attempt_number}: {obs.score}/{MAX_SCORE}"
