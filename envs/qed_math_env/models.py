"""Wire types of the QED math environment, shared by its client and its server.

These import without math-verify installed: only the server needs the ``qed_math`` extra.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from openenv.core import Action, Observation, State

MAX_PROOF_CHARS = 20_000  # a solution longer than this is refused (the judge reads it all)
MAX_SCORE = 7


class QedMathAction(Action):
    proof: str = Field(
        description=(
            "Your solution: the argument, and the final answer in \\boxed{...} when the problem "
            "asks for one"
        ),
        max_length=MAX_PROOF_CHARS,
        json_schema_extra={"format": "textarea"},  # the playground writes it over several lines
    )


class RubricMark(BaseModel):
    """One item of the problem's rubric and what the last attempt earned on it."""

    title: str = Field(description="What the item rewards")
    max_points: int = Field(description="Points the item is worth")
    points: int | None = Field(default=None, description="Points earned; None: not graded")
    graded_by: str = Field(default="", description="math-verify, or the proof grader's name")
    note: str = Field(default="", description="Why, in a few words")


class QedMathObservation(Observation):
    problem: str = Field(default="", description="The problem statement")
    problem_id: str = Field(default="", description="The problem's id in the problem set")
    problem_type: str = Field(
        default="", description="answer, proof, or proof_with_answer (a proof and a final answer)"
    )
    dataset_source: str = Field(default="", description="The problem set it comes from")
    grading_guidelines: str = Field(default="", description="The rubric: items and their points")
    proof: str | None = Field(default=None, description="The solution you submitted")
    final_answer: str | None = Field(
        default=None, description="What your last \\boxed{...} held (problems with an answer)"
    )
    answer_correct: bool | None = Field(
        default=None, description="math-verify's verdict on the final answer, when there is one"
    )
    score: int | None = Field(
        default=None, description="Rubric points of the attempt, 0..7; None: it was not graded"
    )
    marks: list[RubricMark] = Field(default_factory=list, description="Points per rubric item")
    feedback: str = Field(default="", description="The grader's feedback on the attempt")
    is_correct: bool = Field(default=False, description="Whether the attempt earned 7 of 7")
    grader: str = Field(default="", description="Who grades proofs on this server")
    attempt_number: int = Field(default=0, description="Graded attempts so far")
    attempts_remaining: int = Field(default=0, description="Graded attempts left")
    reference_solution: str | None = Field(
        default=None, description="A reference solution, shown once the episode is over"
    )
    message: str = Field(default="", description="What happened, in words")


class QedMathState(State):
    problem_id: str = ""
    problem_type: str = ""
    max_attempts: int = 3
    attempts: int = 0
    best_score: int = 0
    grader: str = ""
