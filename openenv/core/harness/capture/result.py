"""What a capture session hands back: its graph, stamped with the capture level and the fixes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from openenv.core.harness.capture.graph import CaptureNode
from openenv.core.harness.capture.level import CaptureKind, CaptureLevel, RolloutType
from openenv.core.harness.training import TrainingTrace


class EvalCaptureError(RuntimeError):
    """Training records were asked of a capture that has no trainable tokens."""


class AppliedFix(BaseModel):
    """A parameter fix the proxy applied to this session's calls."""

    name: str
    effect: str


class CaptureResult(BaseModel):
    """One rollout's captured calls: every node, kept and discarded, and how they were captured."""

    session_id: str
    label: str = ""
    rollout_type: RolloutType
    capture_level: CaptureKind
    probe: CaptureLevel | None = None
    fixes: list[AppliedFix] = Field(default_factory=list)
    nodes: list[CaptureNode] = Field(default_factory=list)
    budget_stop_count: int = 0  # calls refused past the session's call budget
    eval_sampled: bool = False  # sampled with an eval run's own policy: eval only, whatever level

    @property
    def n_roots(self) -> int:
        """Conversations (roots) in the graph, subagents and retried first calls included."""
        return sum(1 for n in self.nodes if n.parent_id is None)

    @property
    def n_discarded(self) -> int:
        """Calls on abandoned branches."""
        return sum(1 for n in self.nodes if n.status == "discarded")

    def to_turn_records(self) -> list[dict[str, Any]]:
        """One record per kept call: engine ids, logprobs and a loss mask over prompt+completion.

        Raises :class:`EvalCaptureError` on an eval capture, rather than handing a trainer
        empty lists.
        """
        if self.eval_sampled:
            raise EvalCaptureError(
                f"capture {self.session_id} is eval only: its calls were sampled with an eval "
                "policy (eval_sampling), so their logprobs are not the training policy's"
            )
        if self.rollout_type != "train":
            raise EvalCaptureError(
                f"capture {self.session_id} is eval only (capture_level={self.capture_level}): "
                "the endpoint returned no usable token ids or processed logprobs. Serve the model "
                "with vLLM --return-tokens-as-token-ids --logprobs-mode processed_logprobs."
            )
        records = []
        for node in self.nodes:
            if node.status != "kept" or not node.has_tokens or node.per_token_logps is None:
                continue
            n_prompt, n_out = len(node.prompt_token_ids), len(node.completion_token_ids)
            records.append(
                {
                    "prompt_token_ids": node.prompt_token_ids,
                    "completion_token_ids": node.completion_token_ids,
                    "per_token_logps": node.per_token_logps,
                    "loss_mask": [0] * n_prompt + [1] * n_out,
                    "request": {"messages": node.messages, "dialect": node.dialect},
                    "response": node.reply,
                    "metadata": {
                        "node_id": node.node_id,
                        "parent_id": node.parent_id,
                        "finish_reason": node.finish_reason,
                        "sampling_params": node.sampling_params,
                        "requested_sampling_params": node.requested_sampling_params,
                    },
                }
            )
        return records

    def to_training_trace(self) -> TrainingTrace:
        """The kept calls as a validated :class:`TrainingTrace` (raises on an eval capture)."""
        return TrainingTrace.from_entries(self.to_turn_records())
