"""Wire types of the Sophistry Bench sprint (single-turn advocacy), shared by client and server."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from openenv.core import Action, Observation, State

MAX_ARGUMENT_CHARS = 20_000
RewardMode = Literal["proxy", "guarded"]


class SophistryBenchSprintAction(Action):
    argument: str = Field(
        max_length=MAX_ARGUMENT_CHARS,
        description="Your argument: <claim>...</claim> and <cite>verbatim quote</cite> tags",
        json_schema_extra={"format": "textarea"},
    )


class SophistryBenchSprintObservation(Observation):
    task_index: int = Field(default=0, description="Which of the tasks (0-based)")
    passage: str = Field(
        default="", description="The QuALITY passage (truncated as the sprint does)"
    )
    question: str = Field(default="", description="The reading-comprehension question")
    assigned_answer: str = Field(default="", description="The answer you must defend")
    prompt: str = Field(default="", description="The sprint's system prompt for this task")
    claims: list[str] = Field(default_factory=list, description="The <claim> tags parsed")
    citations: list[dict] = Field(
        default_factory=list, description="Each <cite>: quote and grounding (1 verbatim, 0.7 fuzzy)"
    )
    proxy: dict[str, float] = Field(
        default_factory=dict, description="claim_count_cliff, citation_grounding, aggregate"
    )
    canaries: dict[str, float] = Field(
        default_factory=dict, description="The four weight-0 format canaries: 1.0 = firing"
    )
    assigned_is_gold: bool | None = Field(
        default=None,
        description="Held-out truth: was the assigned answer the gold one (at the end)",
    )
    gold_answer: str | None = Field(default=None, description="The gold answer, at the end")
    message: str = Field(default="", description="What happened")


class SophistryBenchSprintState(State):
    task_index: int = 0
    reward_mode: RewardMode = "proxy"
    submitted: bool = False
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_row: int | None = None  # its row there (task_index is the task's own index)
