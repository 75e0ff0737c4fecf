"""Capture level: what an endpoint returns, and so what a rollout against it can be used for."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

CaptureKind = Literal["tokens", "logprobs", "text"]
RolloutType = Literal["train", "eval"]
ALLOW_RAW_ENV = "OPENENV_ALLOW_RAW_LOGPROBS"


class CaptureLevel(BaseModel):
    """The probe's verdict, stamped on every capture result.

    ``capture_level``: ``tokens`` (prompt and completion ids with aligned logprobs), ``logprobs``
    (logprobs without ids) or ``text``. ``rollout_type`` is ``train`` only at ``tokens`` with
    processed logprobs (or raw ones allowed by ``OPENENV_ALLOW_RAW_LOGPROBS=1``).
    """

    model: str | None = None
    capture_level: CaptureKind = "text"
    rollout_type: RolloutType = "eval"
    logprobs_mode: Literal["processed", "raw", "unknown"] = "unknown"
    raw_allowed_by_env: bool = False
    tools: Literal["ok", "no_tool_call", "inconclusive", "error", "not_probed"] = "not_probed"
    notes: list[str] = Field(default_factory=list)

    @property
    def label(self) -> str:
        """``[TRAIN]`` or ``[EVAL ONLY]``, as printed at startup."""
        return "[TRAIN]" if self.rollout_type == "train" else "[EVAL ONLY]"

    @property
    def wants_tokens(self) -> bool:
        """Whether the proxy asks the endpoint for ids and logprobs."""
        return self.capture_level != "text"
