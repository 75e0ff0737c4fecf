"""Wire types of the Pelican SVG benchmark, shared by its client and its server."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openenv.core import Action, Observation, State

MAX_SVG_CHARS = 100_000


class PelicanSvgAction(Action):
    svg: str = Field(
        max_length=MAX_SVG_CHARS,
        description="The whole SVG document (<svg xmlns=...>...</svg>), drawn blind",
        json_schema_extra={"format": "textarea"},  # the playground writes it over several lines
    )


class PelicanSvgObservation(Observation):
    task_id: str = Field(default="", description="The task, e.g. pelican-bicycle")
    prompt: str = Field(default="", description="What to draw")
    submitted: bool = Field(default=False, description="True once a drawing was scored")
    gate: dict[str, list[str]] = Field(
        default_factory=dict, description="Cheats the source gate found, by kind (empty: passed)"
    )
    geometry: list[dict[str, Any]] = Field(
        default_factory=list, description="Each geometry check: name, passed, detail"
    )
    judge: dict[str, Any] = Field(
        default_factory=dict,
        description="The vision judge: score (None: not judged), judge, reason",
    )
    message: str = Field(default="", description="What happened")


class PelicanSvgState(State):
    task_id: str = ""
    judge_mode: str = "endpoint"
    submitted: bool = False
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_index: int | None = None  # its row there
