"""Single-step reasoning tasks from the reasoning-gym package, scored by each dataset's scorer.

``reset`` picks a question: the dataset (``task_name``, or a weighted mix in ``task_specs``),
its configuration (``task_config``) or curriculum level (``difficulty``), and the seed fix which
one. ``step`` takes one answer and the episode ends; the reward comes from a rubric
(``rubrics.py``) whose one component, ``correctness``, is ``dataset.score_answer(answer, entry)``
(0..1). Any text is a valid answer, so there are no illegal moves here.
"""

from __future__ import annotations

import dataclasses
import textwrap
import uuid
from pathlib import Path
from typing import Annotated, Any

import reasoning_gym
from pydantic import Field
from reasoning_gym import factory
from reasoning_gym.composite import DatasetSpec

from openenv.core import Environment, InvalidAction, Text
from openenv.core.bounds import check_settings
from openenv.core.task_source import TaskColumns, TaskRows
from reasoning_gym_env.models import ReasoningGymAction, ReasoningGymObservation, ReasoningGymState
from reasoning_gym_env.server.rubrics import reasoning_gym_rubric, score_answer

EXAMPLES = "leg_counting, basic_arithmetic, chain_sum, syllogism, mini_sudoku"
MAX_DATASET_SIZE = 100_000
MAX_DIFFICULTY = 100  # a level past the last of a curriculum plays its last
TEXT_WIDTH = 48  # long prose lines are wrapped for the text view; short lines (grids) kept
PACKAGE_DIR = Path(__file__).resolve().parent.parent  # its tasks/ holds the shipped task files
# A row of a task file: reasoning-gym's own entries (question, answer, metadata whose
# source_dataset names the scorer), or any question/answer dataset (exact-match scoring).
TASK_ROWS = TaskRows(
    PACKAGE_DIR,
    TaskColumns(
        fields={
            "question": ("question", "prompt", "problem"),
            "answer": ("answer", "solution", "target"),
            "metadata": ("metadata",),
            "source_dataset": ("source_dataset", "task"),
        },
        defaults={"metadata": {}, "source_dataset": None},
    ),
)
TaskSource, TaskRow = TASK_ROWS.options()


def wrap(text: str, width: int = TEXT_WIDTH) -> str:
    """Wrap long lines of ``text`` at ``width`` columns, keeping short lines as they are."""
    lines = []
    for line in text.strip().splitlines():
        lines.extend(textwrap.wrap(line, width) if len(line) > width else [line])
    return "\n".join(lines)


def _is_spec(spec: Any) -> bool:
    return isinstance(spec, dict) and isinstance(spec.get("name"), str)


def _check_task(name: str) -> None:
    if name not in factory.DATASETS or name == "composite":
        raise InvalidAction(f"unknown reasoning-gym task {name!r}; try one of {EXAMPLES}")


def _leveled_config(name: str, difficulty: int, seed: int, size: int) -> Any:
    """The dataset's configuration at curriculum level ``difficulty`` (0 is easiest)."""
    if name not in factory.CURRICULA:
        raise InvalidAction(f"{name} has no difficulty levels; set task_config instead")
    curriculum = factory.create_curriculum(name)
    curriculum.set_global_level(difficulty)
    return curriculum.generate_configuration({"seed": seed, "size": size})


def _configured(config: Any, overrides: dict[str, Any]) -> Any:
    try:
        config = dataclasses.replace(config, **overrides)
        if hasattr(config, "validate"):
            config.validate()
    except (TypeError, ValueError, AssertionError) as exc:
        raise InvalidAction(f"task_config {overrides} is not valid: {exc}") from exc
    return config


def build_dataset(name, config, specs, difficulty, seed, size):
    """A reasoning-gym dataset from the reset options; InvalidAction says what to fix."""
    if specs:
        mix = [DatasetSpec(s["name"], s.get("weight", 1.0), s.get("config", {})) for s in specs]
        for spec in mix:
            _check_task(spec.name)
        try:
            return reasoning_gym.create_dataset("composite", seed=seed, size=size, datasets=mix)
        except (TypeError, ValueError, AssertionError) as exc:
            raise InvalidAction(f"task_specs {specs} are not valid: {exc}") from exc
    _check_task(name)
    dataset_cls, config_cls = factory.DATASETS[name]
    if difficulty is None:
        base = config_cls(seed=seed, size=size)
    else:
        base = _leveled_config(name, difficulty, seed, size)
    return dataset_cls(config=_configured(base, config))


class ExactScorer:
    """The scorer of a row no reasoning-gym dataset claims: reasoning-gym's default (1 for the
    reference answer, partial credit for an answer containing it)."""

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        reference = str(entry["answer"])
        if not answer:
            return 0.0
        if answer.strip() == reference.strip():
            return 1.0
        return len(reference) / len(answer) if reference and reference in answer else 0.0


def row_entry(task: dict[str, Any]) -> tuple[Any, dict[str, Any], str]:
    """(scorer, entry, task name) for a task row: the named dataset's own scorer when the row
    says which reasoning-gym dataset it comes from, else :class:`ExactScorer`."""
    metadata = task["metadata"] if isinstance(task["metadata"], dict) else {}
    name = task["source_dataset"] or metadata.get("source_dataset")
    entry = {"question": str(task["question"]), "answer": str(task["answer"])}
    entry["metadata"] = {**metadata, "source_dataset": name} if name else metadata
    if isinstance(name, str) and name in factory.DATASETS and name != "composite":
        dataset_cls, config_cls = factory.DATASETS[name]
        return dataset_cls(config=config_cls()), entry, name
    return ExactScorer(), entry, str(name or "task_source")


class ReasoningGymEnvironment(
    Environment[ReasoningGymAction, ReasoningGymObservation, ReasoningGymState]
):
    how_to_play = (
        "Read the puzzle, type your answer in the box and press Send: the dataset's own "
        "scorer grades it."
    )

    def __init__(self) -> None:
        self._dataset: Any = None
        self._entry: dict[str, Any] = {"question": "", "answer": "", "metadata": {}}
        self._state = ReasoningGymState()
        self._last = ReasoningGymObservation()
        self.rubric = reasoning_gym_rubric(lambda: (self._dataset, self._entry))

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_name: str = "leg_counting",
        task_config: dict[str, Any] | None = None,
        task_specs: list[dict[str, Any]] | None = None,
        difficulty: Annotated[
            int, Field(ge=0, le=MAX_DIFFICULTY, description="a curriculum level, 0 is easiest")
        ]
        | None = None,
        dataset_size: Annotated[int, Field(ge=1, le=MAX_DATASET_SIZE)] = 100,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> ReasoningGymObservation:
        picked = TASK_ROWS.pick(
            task_source, task_index, self.rng, "question",
            task_specs=task_specs, task_config=task_config, difficulty=difficulty is not None,
        )  # fmt: skip
        if picked is not None:
            self._dataset, self._entry, name = row_entry(picked.task)
            self._state = ReasoningGymState(
                episode_id=episode_id or str(uuid.uuid4()),
                task_name=name,
                dataset_size=picked.rows,
                entry_index=picked.index,
                task_source=picked.source,
            )
            self._last = ReasoningGymObservation(
                question=self._entry["question"], task=self._task(), message="Answer the question."
            )
            return self._last
        if task_specs is not None and not all(_is_spec(spec) for spec in task_specs):
            raise InvalidAction(
                'task_specs must be a list like [{"name": "leg_counting", "weight": 2}]'
            )
        check_settings("task_config", task_config or {})
        check_settings("task_specs", task_specs or [])
        dataset_seed = self.rng.randrange(2**31)
        index = self.rng.randrange(dataset_size)
        dataset = build_dataset(
            task_name, task_config or {}, task_specs, difficulty, dataset_seed, dataset_size
        )
        self._entry = self._generate(dataset, index, task_name)
        self._dataset = dataset
        self._state = ReasoningGymState(
            episode_id=episode_id or str(uuid.uuid4()),
            task_name="composite" if task_specs else task_name,
            task_config=dict(task_config or {}),
            task_specs=task_specs,
            difficulty=difficulty,
            dataset_size=dataset_size,
            dataset_seed=dataset_seed,
            entry_index=index,
        )
        self._last = ReasoningGymObservation(
            question=self._entry["question"], task=self._task(), message="Answer the question."
        )
        return self._last

    def step(self, action: ReasoningGymAction) -> ReasoningGymObservation:
        score = score_answer((self._dataset, self._entry), action.answer)  # what the rubric gives
        self._state.step_count += 1
        verdict = "Correct!" if score >= 1.0 else "Partly right." if score > 0 else "Not right."
        self._last = ReasoningGymObservation(
            question=self._entry["question"],
            task=self._task(),
            answer=action.answer,
            score=score,
            correct_answer=str(self._entry["answer"]),
            message=f"{verdict} Score {score:g}.",
            done=True,
        )
        return self._last

    @property
    def state(self) -> ReasoningGymState:
        return self._state

    def render(self) -> Text:
        obs = self._last
        parts = [f"[{obs.task}]", "", wrap(obs.question)]
        if obs.done:
            parts += ["", f"Your answer: {obs.answer}", f"Reference answer: {obs.correct_answer}"]
            parts.append(f"Score: {obs.score:g}")
        return Text("\n".join(parts))

    def _task(self) -> str:
        return str(self._entry.get("metadata", {}).get("source_dataset", self._state.task_name))

    @staticmethod
    def _generate(dataset: Any, index: int, task: str) -> dict[str, Any]:
        try:
            return dataset[index]
        except Exception as exc:  # third-party generators fail in many ways; report, don't hide
            raise InvalidAction(
                f"reasoning-gym could not generate question {index} of {task}: {exc!r}; "
                "try another seed, task or task_config"
            ) from exc
