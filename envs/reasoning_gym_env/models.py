"""Wire types of the reasoning gym environment, shared by its client and its server.

These import without reasoning-gym installed: only the server needs the ``reasoning_gym`` extra.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openenv.core import Action, Observation, State


class ReasoningGymAction(Action):
    answer: str = Field(description="Your answer to the question, as text")


class ReasoningGymObservation(Observation):
    question: str = Field(default="", description="The task's question")
    task: str = Field(default="", description="The reasoning-gym dataset the question comes from")
    answer: str | None = Field(default=None, description="The answer you submitted")
    score: float | None = Field(
        default=None, description="The dataset's own score of your answer, 0..1"
    )
    correct_answer: str | None = Field(
        default=None, description="A reference answer, shown once you have answered"
    )
    message: str = Field(default="", description="What happened, in words")


class ReasoningGymState(State):
    task_name: str = "leg_counting"
    task_config: dict[str, Any] = Field(default_factory=dict)
    task_specs: list[dict[str, Any]] | None = None
    difficulty: int | None = None
    dataset_size: int = 100
    dataset_seed: int = 0
    entry_index: int = 0
    task_source: str | None = None  # the task file or dataset the question is a row of
