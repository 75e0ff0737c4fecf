"""The training contract: a rollout's selected engine calls with explicit loss masks.

Wire-compatible with ``openenv`` 0.10's ``openenv.core.harness.TrainingTrace``: the same JSON
(``schema_version`` 1, ``turns`` of ``node_id``, ids, logprobs, ``loss_mask`` over prompt plus
completion, ``request``/``response``/``metadata``) loads in either. Rewards are not part of it:
they come from the task's verifier, beside the trace.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


def check_turn(
    prompt_ids: list[int], completion_ids: list[int], logps: list[float], mask: list[int]
) -> None:
    """Raise ``ValueError`` naming every way a turn is not trainable as given."""
    problems = []
    if not prompt_ids:
        problems.append("no prompt_token_ids: the engine must return its own tokenisation")
    if any(type(t) is not int or t < 0 for t in [*prompt_ids, *completion_ids]):
        problems.append("token ids must be non-negative integers")
    if len(logps) != len(completion_ids):
        problems.append(f"{len(logps)} logprobs for {len(completion_ids)} completion tokens")
    if any(isinstance(v, bool) or not math.isfinite(v) or v > 0 for v in logps):
        problems.append("logprobs must be finite and not positive")
    if len(mask) != len(prompt_ids) + len(completion_ids):
        problems.append("loss_mask must cover prompt plus completion")
    elif any(type(m) is not int or m not in (0, 1) for m in mask):
        problems.append("loss_mask holds only 0 and 1")
    elif any(mask[: len(prompt_ids)]):
        problems.append("prompt tokens are context: their loss_mask must be 0")
    if problems:
        raise ValueError("invalid training turn: " + "; ".join(problems))


class TrainingTurn(BaseModel):
    """One engine call: its ids, the behaviour policy's logprobs and the loss mask."""

    model_config = ConfigDict(strict=True, extra="forbid")

    node_id: str = Field(min_length=1)
    prompt_token_ids: list[int]
    completion_token_ids: list[int]
    per_token_logps: list[float]
    loss_mask: list[int]
    request: dict[str, Any] = Field(default_factory=dict)
    response: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _trainable(self) -> TrainingTurn:
        check_turn(
            self.prompt_token_ids, self.completion_token_ids, self.per_token_logps, self.loss_mask
        )
        return self


class TrainingTrace(BaseModel):
    """A rollout's selected calls, each once (``node_id`` unique); zero-masked turns are context."""

    model_config = ConfigDict(strict=True, extra="forbid")

    schema_version: Literal[1] = 1
    turns: list[TrainingTurn]

    @model_validator(mode="after")
    def _unique(self) -> TrainingTrace:
        ids = [t.node_id for t in self.turns]
        if len(ids) != len(set(ids)):
            raise ValueError("a training trace holds each node_id once")
        return self

    @classmethod
    def from_entries(cls, entries: list[dict[str, Any]]) -> TrainingTrace:
        """Build from turn records (``metadata.node_id`` names each); nothing is inferred."""
        turns = []
        for entry in entries:
            fields = {
                k: entry[k]
                for k in (
                    "prompt_token_ids",
                    "completion_token_ids",
                    "per_token_logps",
                    "loss_mask",
                )
            }
            extra = {k: entry.get(k, {}) for k in ("request", "response", "metadata")}
            turns.append(TrainingTurn(node_id=entry["metadata"]["node_id"], **fields, **extra))
        return cls(turns=turns)

    def to_trace_entries(self) -> list[dict[str, Any]]:
        """Turn records again, with ``node_id`` back inside ``metadata``."""
        return [
            {**t.model_dump(exclude={"node_id"}), "metadata": {**t.metadata, "node_id": t.node_id}}
            for t in self.turns
        ]
