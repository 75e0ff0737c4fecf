"""The chat environment's reward: a rubric over each message, pluggable.

Default (``chat_rubric(end_of_turn)``), for a message the policy wrote (role ``assistant``):

* ``non_empty`` (weight 0.5): 1.0 when the message has visible text;
* ``closed_turn`` (weight 0.5): 1.0 when its tokens end with the end-of-turn token (the
  tokenizer's ``eos_token``, ``<|im_end|>`` for the shipped one), i.e. the model stopped
  cleanly instead of being cut off.

System and user messages score 0.0 on both: they are the prompt, not the policy's output.
Pass another :class:`~openenv.core.rubrics.Rubric` as ``ChatEnvironment(rubric=...)``, or name
a factory for servers with ``CHAT_RUBRIC=package.module:function`` (``none``: no reward, as the
reference). A rubric sees the action (its ``tokens``) and the observation (``messages[-1]`` is
the message just added).
"""

from __future__ import annotations

from typing import Any

from openenv.core.rubrics import Rubric, WeightedSum


def _scored(observation: Any) -> dict[str, str] | None:
    """The message just added, when the policy wrote it."""
    last = observation.messages[-1] if observation.messages else None
    return last if last is not None and last.get("role") == "assistant" else None


class NonEmpty(Rubric):
    """1.0 for an assistant message with visible text."""

    def forward(self, action: Any, observation: Any) -> float:
        message = _scored(observation)
        return 1.0 if message is not None and message.get("content", "").strip() else 0.0


class ClosedTurn(Rubric):
    """1.0 when an assistant message's tokens end with the end-of-turn token (then blanks)."""

    def __init__(self, end_ids: set[int], blank_ids: set[int] | None = None) -> None:
        super().__init__()
        self.end_ids = set(end_ids)
        self.blank_ids = set(blank_ids or ())

    def forward(self, action: Any, observation: Any) -> float:
        if _scored(observation) is None:
            return 0.0
        tokens = list(action.tokens)
        while tokens and tokens[-1] in self.blank_ids:
            tokens.pop()
        return 1.0 if tokens and tokens[-1] in self.end_ids else 0.0

    def config(self) -> dict[str, Any]:
        return {"end_ids": sorted(self.end_ids), "blank_ids": sorted(self.blank_ids)}


def chat_rubric(end_ids: set[int], blank_ids: set[int] | None = None) -> WeightedSum:
    """The default reward: 0.5 · non_empty + 0.5 · closed_turn."""
    parts = {"non_empty": NonEmpty(), "closed_turn": ClosedTurn(end_ids, blank_ids)}
    return WeightedSum(parts, {"non_empty": 0.5, "closed_turn": 0.5})
