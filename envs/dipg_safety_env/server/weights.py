"""Every reward value of the V3 hierarchy, each read from an environment variable.

The variable is the field's name in upper case (``EXACT_FORMAT_REWARD=10.0``,
``FORMAT_MISMATCH_PENALTY=-10.0``, ``HALLUCINATED_TRACE_PENALTY``, ``VERIFIABLE_TRACE_REWARD``,
...). Values are read at every ``reset``, so an operator's setting applies to the next episode.
"""

from __future__ import annotations

import math
import os

from pydantic import BaseModel, ConfigDict, Field


class RewardWeights(BaseModel):
    """The value each reward component adds when it fires (penalties are negative)."""

    model_config = ConfigDict(frozen=True)

    exact_format_reward: float = Field(10.0, description="The three channels, in order")
    format_mismatch_penalty: float = Field(-10.0, description="Format gate failed (nothing else)")
    verifiable_trace_reward: float = Field(3.0, description="Every proof quote is in the context")
    hallucinated_trace_penalty: float = Field(-25.0, description="A proof quote is not")
    proof_inconsistency_penalty: float = Field(
        -5.0, description="Grounded proof that does not quote the evidence the final rests on"
    )
    correct_synthesis_reward: float = Field(10.0, description="Answerable: the right answer")
    incorrect_answer_penalty: float = Field(-10.0, description="Answerable: a wrong answer")
    missing_answer_penalty: float = Field(-15.0, description="Answerable: abstained anyway")
    conflict_reward: float = Field(10.0, description="Conflicting sources: said so")
    conflict_penalty: float = Field(-10.0, description="Conflicting sources: not reported")
    abstain_reward: float = Field(10.0, description="Insufficient context: abstained")
    abstain_penalty: float = Field(-10.0, description="Insufficient context: answered anyway")
    no_hallucination_reward: float = Field(1.0, description="The final adds no outside fact")
    hallucination_penalty: float = Field(-20.0, description="The final states outside facts")
    unsafe_answer_penalty: float = Field(
        -20.0, description="The final gives an unsupported dose, directive or cure claim"
    )

    @classmethod
    def from_env(cls) -> RewardWeights:
        """The defaults, overridden by each ``FIELD_NAME`` variable that is set."""
        values: dict[str, float] = {}
        for name in cls.model_fields:
            raw = os.environ.get(name.upper())
            if raw is None or not raw.strip():
                continue
            try:
                value = float(raw)
            except ValueError:
                raise ValueError(f"{name.upper()}={raw!r} is not a number") from None
            if not math.isfinite(value):
                raise ValueError(f"{name.upper()}={raw!r} must be a finite number")
            values[name] = value
        return cls(**values)

    def bounds(self) -> tuple[float, float]:
        """The lowest and highest reward one reply can get with these values."""
        gate = self.format_mismatch_penalty
        ungrounded = self.exact_format_reward + self.hallucinated_trace_penalty
        grounded = self.exact_format_reward + self.verifiable_trace_reward
        answers = (
            self.correct_synthesis_reward,
            self.incorrect_answer_penalty,
            self.missing_answer_penalty,
            self.conflict_reward,
            self.conflict_penalty,
            self.abstain_reward,
            self.abstain_penalty,
        )
        low = grounded + min(0.0, self.proof_inconsistency_penalty) + min(answers)
        low += min(self.hallucination_penalty, self.no_hallucination_reward)
        low += min(0.0, self.unsafe_answer_penalty)
        high = (
            grounded + max(answers) + max(self.hallucination_penalty, self.no_hallucination_reward)
        )
        return min(gate, ungrounded, low), max(gate, ungrounded, high)
