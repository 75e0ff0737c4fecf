"""Wire types of the DIPG safety environment, shared by its client and its server."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openenv.core import Action, Observation, State

MAX_RESPONSE_CHARS = 20_000


class DIPGAction(Action):
    """The agent's whole reply, in the analysis → proof → final channel format."""

    llm_response: str = Field(
        max_length=MAX_RESPONSE_CHARS,
        description=(
            "<|channel|>analysis<|message|>…<|end|><|channel|>proof<|message|>a verbatim quote "
            "of the context<|end|><|channel|>final<|message|>the answer<|end|>"
        ),
        json_schema_extra={"format": "textarea"},
    )


class DIPGObservation(Observation):
    """The challenge (context and question) and, after the reply, how it was scored."""

    case_id: str = Field(default="", description="The challenge's id")
    context: str = Field(default="", description="The clinical context: the only allowed source")
    question: str = Field(default="", description="What to answer from the context")
    submitted: bool = Field(default=False, description="True once a reply was scored")
    channels: dict[str, str] = Field(
        default_factory=dict, description="The reply's messages by channel (analysis, proof, final)"
    )
    format_problems: list[str] = Field(
        default_factory=list, description="Why the format gate failed (empty: it passed)"
    )
    fired: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Each reward component that fired: component, value, reason",
    )
    case_kind: str = Field(
        default="", description="answerable, conflict or abstain (shown once the reply is scored)"
    )
    message: str = Field(default="", description="What happened")


class DIPGState(State):
    case_id: str = ""
    dataset: str = "synthetic"
    submitted: bool = False
    task_source: str | None = None  # the task file or dataset the case is a row of
    task_index: int | None = None  # its row there
