"""Reasoning Core: one procedurally generated task per episode, checked by its own verifier.

``reset`` generates a question with reasoning-core (:mod:`generator`, in a helper process): the
``task`` (or, without one, a task the seed draws from a mix of logic, mathematics and planning),
its ``difficulty`` (the generator's level, 0 is easiest) and the seed fix which question.
``step`` takes one answer and the episode ends; the reward comes from a rubric whose one
component, ``correctness``, is the task's own ``score_answer`` (0..1; some tasks give partial
credit). Any text is a valid answer. A task that fails to generate is refused at reset, with
the reason; the session goes on.
"""

from __future__ import annotations

import json
import textwrap
import uuid
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from openenv.core import Environment, InvalidAction, Text
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from reasoning_core_env.models import (
    ReasoningCoreAction,
    ReasoningCoreObservation,
    ReasoningCoreState,
)
from reasoning_core_env.server.generator import SCORE_TIMEOUT_S, GenerationError, generator
from reasoning_core_env.server.tasks import DEFAULT_MIX, area_of, check_task

MAX_DIFFICULTY = 6
PACKAGE_DIR = Path(__file__).resolve().parent.parent  # its tasks/ holds the shipped task files
# A row of a task file, as Reasoning Core's datasets on the Hub hold them: the prompt, the
# answer, and the metadata (a dict or JSON text) whose ``_task`` names the task whose verifier
# scores it (or a ``task`` column).
TASK_ROWS = TaskRows(
    PACKAGE_DIR,
    TaskColumns(
        fields={
            "prompt": ("prompt", "question"),
            "answer": ("answer",),
            "task": ("task",),
            "metadata": ("metadata",),
        },
        defaults={"task": None, "metadata": {}},
    ),
)
TaskSource, TaskRow = TASK_ROWS.options()


def row_question(picked: PickedTask) -> tuple[dict[str, Any], str, int]:
    """(question, task name, level) of a task row: the row is the entry the verifier scores."""
    task = picked.task
    metadata = task["metadata"]
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            raise picked.error("its metadata is text but not JSON") from None
    if not isinstance(metadata, dict):
        raise picked.error("its metadata must be an object")
    name = task["task"] or metadata.get("_task") or metadata.get("task")
    if not isinstance(name, str):
        raise picked.error("it names no task (a task column or metadata._task)")
    name = check_task(name)
    level = metadata.get("_level", 0)
    entry = {"prompt": str(task["prompt"]), "answer": str(task["answer"]), "task": name}
    entry["metadata"] = metadata
    question = {"prompt": entry["prompt"], "answer": entry["answer"], "entry": entry}
    return question, name, level if isinstance(level, int) else 0


TEXT_WIDTH = 72


def wrap(text: str, width: int = TEXT_WIDTH) -> str:
    """Long lines wrapped at ``width`` columns; short lines (grids, tables) kept as they are."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        lines.extend(textwrap.wrap(line, width) if len(line) > width else [line])
    return "\n".join(lines)


class ReasoningCoreEnvironment(
    Environment[ReasoningCoreAction, ReasoningCoreObservation, ReasoningCoreState]
):
    how_to_play = (
        "Read the task, type your answer in the box and press Send: Reasoning Core's own "
        "verifier scores it, from 0 to 1."
    )
    STEP_KIND = "io"  # generation and scoring wait on the helper process
    CALL_TIMEOUT_S = 150.0  # the helper's first question imports the generators (slow)

    def __init__(self) -> None:
        self._question: dict[str, Any] = {"prompt": "", "answer": "", "entry": None}
        self._state = ReasoningCoreState()
        self._last = ReasoningCoreObservation()
        self._score = 0.0
        correctness = FnRubric(lambda action, obs: self._score, "correctness")
        self.rubric = WeightedSum({"correctness": correctness}, {"correctness": 1.0})

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: Annotated[
            str | None, Field(description="a reasoning-core task; none: one of a mix")
        ] = None,
        difficulty: Annotated[
            int, Field(ge=0, le=MAX_DIFFICULTY, description="the generator's level, 0 is easiest")
        ] = 0,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> ReasoningCoreObservation:
        picked = TASK_ROWS.pick(
            task_source, task_index, self.rng, "question", task=task, difficulty=difficulty
        )
        if picked is not None:
            self._question, name, level = row_question(picked)
            self._score = 0.0
            self._state = ReasoningCoreState(
                episode_id=episode_id or str(uuid.uuid4()),
                task=name,
                difficulty=level,
                task_source=picked.source,
                task_index=picked.index,
            )
            self._last = self._observation("Answer the question.")
            return self._last
        name = check_task(task) if task else DEFAULT_MIX[self.rng.randrange(len(DEFAULT_MIX))]
        generation_seed = self.rng.randrange(2**31)
        try:
            self._question = generator().call("generate", name, difficulty, generation_seed)
        except GenerationError as exc:
            raise InvalidAction(
                f"{name} at difficulty {difficulty} could not be generated ({exc}); "
                "try another seed, difficulty or task"
            ) from exc
        self._score = 0.0
        self._state = ReasoningCoreState(
            episode_id=episode_id or str(uuid.uuid4()),
            task=name,
            difficulty=difficulty,
            generation_seed=generation_seed,
        )
        self._last = self._observation("Answer the question.")
        return self._last

    def step(self, action: ReasoningCoreAction) -> ReasoningCoreObservation:
        try:
            score = generator().call(
                "score", action.answer, self._question["entry"], timeout_s=SCORE_TIMEOUT_S
            )
        except GenerationError as exc:  # the verifier failed on this answer: it earns nothing
            score, why = 0.0, f" (the verifier could not score it: {exc})"
        else:
            why = ""
        self._score = max(0.0, min(1.0, float(score)))
        self._state.step_count += 1
        verdict = (
            "Correct!" if self._score >= 1 else "Partly right." if self._score else "Not right."
        )
        self._last = self._observation(
            f"{verdict} Score {self._score:g}{why}.", answer=action.answer, done=True
        )
        return self._last

    @property
    def state(self) -> ReasoningCoreState:
        return self._state

    def render(self) -> Text:
        obs = self._last
        head = f"Reasoning Core · {obs.task} · {obs.area or 'other'} · difficulty {obs.difficulty}"
        parts = [head, "", wrap(obs.question)]
        if obs.done:
            parts += ["", f"Your answer: {obs.answer}", f"Reference answer: {obs.correct_answer}"]
        parts += ["", obs.message]
        return Text("\n".join(parts))

    def _observation(
        self, message: str, answer: str | None = None, done: bool = False
    ) -> ReasoningCoreObservation:
        state = self._state
        return ReasoningCoreObservation(
            question=self._question["prompt"],
            task=state.task,
            area=area_of(state.task),
            difficulty=state.difficulty,
            answer=answer,
            score=self._score if done else None,
            correct_answer=self._question["answer"] if done else None,
            message=message,
            done=done,
        )
