"""What a Harbor run is: the request that starts it (:class:`RunRequest`: one task of one
split, an agent, a sandbox, a model, and for a trainer its sampling policy and call cap) and
its record (:class:`RunRecord`: where it is, whose it is, its result once it ended).

A request's key (a visitor's endpoint key, a Hugging Face token) is used for the run and never
kept on its record; a record says which model played (``model``: kind, model, provider or URL),
never with what key.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openenv.core.harness.capture.sessions import MAX_CALLS
from openenv.core.harness.rollout import RolloutResult
from openenv.harbor.hf_models import HfModelsError, check_ref, split_ref

RunStatus = Literal["queued", "running", "ok", "failed", "cancelled"]
ModelKind = Literal["server", "url", "hf", "test"]
FINISHED: tuple[RunStatus, ...] = ("ok", "failed", "cancelled")


class ServiceError(ValueError):
    """A request the service refuses (unknown split or task, a full queue...), and why."""


class RunRequest(BaseModel):
    """What a run is asked to be: one task of one split, an agent, a sandbox, a model."""

    model_config = ConfigDict(extra="forbid")

    split: str = Field(min_length=1, max_length=500)
    task_index: int = Field(ge=0)
    harness: str = Field(default="mini-swe-agent", max_length=100)
    sandbox: str = Field(default="process", max_length=50)
    model: ModelKind = "server"
    url: str | None = Field(default=None, max_length=2048)
    model_name: str | None = Field(default=None, max_length=300)
    api_key: str | None = Field(default=None, max_length=4096, exclude=True, repr=False)
    timeout_s: float | None = Field(default=None, gt=0, le=24 * 3600)
    # a training policy pinned on every model call of the run (``training_sampling``'s), and a
    # cap on the agent's model calls at the proxy
    sampling: dict[str, float | int] = Field(default_factory=dict)
    eval_sampling: dict[str, float | int] | None = None  # an eval run's own (eval only)
    max_calls: int | None = Field(default=None, ge=1, le=MAX_CALLS)
    owner: str | None = Field(default=None, max_length=200, exclude=True)  # whose run it is


class RunRecord(BaseModel):
    """One run: what was asked, where it is, and its result once it ended."""

    id: str
    split: str
    task_index: int
    task: str
    harness: str
    sandbox: str
    model: dict[str, Any] = Field(default_factory=dict)
    status: RunStatus = "queued"
    reason: str = ""
    created_at: float = Field(default_factory=time.time)
    started_at: float | None = None
    ended_at: float | None = None
    session_id: str | None = Field(default=None, exclude=True)
    owner: str | None = Field(default=None, exclude=True)  # None: the operator's
    result: RolloutResult | None = None

    def seen_by(self, viewer: str | None) -> bool:
        """Whether ``viewer`` (a client, or None for the operator) may see this run."""
        return viewer is None or self.owner == viewer

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def summary(self) -> dict[str, Any]:
        """The run without its result body: a row of the runs list."""
        result = self.result
        return {
            **self.model_dump(exclude={"result"}),
            "reward": result.reward if result else None,
            "n_turns": result.n_turns if result else 0,
            "rollout_type": result.capture.rollout_type if result and result.capture else None,
        }


def check_hf(request: RunRequest) -> None:
    """A Hugging Face run names a model (``id`` or ``id:provider``) and carries a token."""
    if not (request.model_name and request.api_key):
        raise ServiceError("a run on Hugging Face needs a model and a Hugging Face token")
    try:
        check_ref(request.model_name)
    except HfModelsError as exc:
        raise ServiceError(str(exc)) from None


def asked_model(request: RunRequest) -> dict[str, Any]:
    """The model a queued run asked for (its endpoint's description replaces it once it runs);
    a Hugging Face run says its model and provider, never its token."""
    if request.model == "hf":
        model, provider = split_ref(request.model_name or "")
        return {"kind": "hf", "model": model, "provider": provider}
    return {"kind": request.model, "url": request.url, "model": request.model_name}
