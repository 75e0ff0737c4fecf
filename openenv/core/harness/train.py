"""GRPO on captured Harbor rollouts: grouped training traces and their rewards, one optimizer step.

A rollout gives a :class:`~openenv.core.harness.TrainingTrace` (the engine's own token ids, the
behaviour policy's per-token logprobs, explicit loss masks) and, beside it, the verifier's reward.
A *group* is several rollouts of one task; a rollout's advantage is its reward normalised within
its group (a group whose rewards are all equal teaches nothing). Each turn of a trace is one
sample: the policy's logprobs of its completion tokens, the importance ratio against the captured
logprobs, PPO's clipped surrogate, and a mean over every loss-masked token of the step::

    policy = load_policy("Qwen/Qwen3-0.6B")          # any causal LM whose tokenizer the engine used
    trainer = TraceGRPO(policy, learning_rate=1e-6)
    stats = trainer.step(group_by_task(load_rollouts(["runs/"])))

``stats.logp_gap`` is the mean distance between the trainer's logprobs and the captured ones
before the update: near 0 when the trainer holds the behaviour policy's weights and samples at
the same ``temperature``; a large gap on the first step means the traces came from another model
or another temperature. For the shipped test engine, :func:`engine_policy` copies its tiny model
and :func:`serve_weights` puts trained weights back in it, so its next rollouts score with them.

TRL's ``AsyncGRPOTrainer`` with its ``HarnessRolloutWorker`` consumes the same ``TrainingTrace``
(``loss_mask[len(prompt):]`` as the completion mask, ``per_token_logps`` as the behaviour
logprobs); it needs a vLLM server with TRL's weight-sync endpoints and a CUDA attention kernel.
"""

from __future__ import annotations

import copy
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from openenv.core.harness.capture import EvalCaptureError
from openenv.core.harness.rollout import RolloutResult
from openenv.core.harness.training import TrainingTrace

if TYPE_CHECKING:
    from openenv.core.harness.engine import Engine

MAX_RESULT_BYTES = 256 * 1024 * 1024  # one saved rollout result


class TraceTrainingError(ValueError):
    """Rollouts that cannot be trained on as given, and what to do about it."""


@dataclass(frozen=True)
class Rollout:
    """One trainable rollout: its training trace, the verifier's reward and the task's name."""

    trace: TrainingTrace
    reward: float
    task: str = ""

    @classmethod
    def of(cls, result: RolloutResult) -> Rollout:
        """The trainable part of a rollout result. An eval capture raises
        :class:`~openenv.core.harness.capture.EvalCaptureError` (it has no token ids); a rollout
        without a reward or without a capture raises :class:`TraceTrainingError`."""
        if result.trace is None:
            if result.capture is not None:
                result.capture.to_training_trace()  # an eval capture: raises, naming the fix
            raise TraceTrainingError(
                f"rollout of {result.task!r} has no capture to train on "
                f"(status {result.status}: {result.reason or 'no reason given'})"
            )
        if result.reward is None or not math.isfinite(result.reward):
            raise TraceTrainingError(
                f"rollout of {result.task!r} has no reward to train on "
                f"(status {result.status}: {result.reason or 'the verifier gave none'})"
            )
        return cls(result.trace, float(result.reward), result.task)


@dataclass(frozen=True)
class TurnSample:
    """One engine call to train on: its ids, the behaviour logprobs, the completion's loss mask
    and the advantage of the rollout it belongs to."""

    prompt_ids: list[int]
    completion_ids: list[int]
    old_logps: list[float]
    mask: list[int]
    advantage: float


@dataclass(frozen=True)
class StepStats:
    """What one optimizer step did."""

    step: int
    loss: float
    rollouts: int
    turns: int
    tokens: int
    reward_mean: float
    ratio_mean: float
    clip_fraction: float
    logp_gap: float
    grad_norm: float

    def line(self) -> str:
        """One line for a log."""
        return (
            f"step {self.step}: loss={self.loss:+.4f} reward={self.reward_mean:.2f} "
            f"rollouts={self.rollouts} turns={self.turns} tokens={self.tokens} "
            f"ratio={self.ratio_mean:.3f} clipped={self.clip_fraction:.2f} "
            f"logp_gap={self.logp_gap:.4f} grad_norm={self.grad_norm:.3f}"
        )


def load_rollouts(paths: Iterable[str | Path]) -> list[Rollout]:
    """Rollout results saved as JSON (``openenv harbor rollout --out FILE``), each a file or a
    folder of ``*.json``; every one must be trainable (see :meth:`Rollout.of`)."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files.extend(sorted(path.glob("*.json")))
        elif path.is_file():
            files.append(path)
        else:
            raise TraceTrainingError(f"{path}: no such file or folder of rollout results")
    if not files:
        raise TraceTrainingError("no rollout results (*.json) found to train on")
    rollouts = []
    for file in files:
        if file.stat().st_size > MAX_RESULT_BYTES:
            raise TraceTrainingError(f"{file}: over {MAX_RESULT_BYTES} bytes for one rollout")
        try:
            result = RolloutResult.model_validate_json(file.read_bytes())
        except ValueError as exc:
            raise TraceTrainingError(f"{file}: not a rollout result: {exc}") from exc
        try:
            rollouts.append(Rollout.of(result))
        except (TraceTrainingError, EvalCaptureError) as exc:
            raise type(exc)(f"{file}: {exc}") from exc
    return rollouts


def group_by_task(rollouts: Iterable[Rollout]) -> list[list[Rollout]]:
    """Rollouts grouped by task, in the order the tasks first appear."""
    groups: dict[str, list[Rollout]] = {}
    for rollout in rollouts:
        groups.setdefault(rollout.task, []).append(rollout)
    return list(groups.values())


def group_advantages(rewards: Sequence[float], *, scale: bool = True) -> list[float]:
    """Each reward minus its group's mean, divided by the group's standard deviation when
    ``scale``; all zeros for a group of one or of equal rewards."""
    if len(rewards) < 2:
        return [0.0] * len(rewards)
    mean = statistics.fmean(rewards)
    centred = [r - mean for r in rewards]
    if not scale:
        return centred
    spread = statistics.stdev(rewards)
    return [c / (spread + 1e-4) for c in centred]


def turn_samples(groups: Sequence[Sequence[Rollout]], *, scale: bool = True) -> list[TurnSample]:
    """Every turn (with a reply) of every rollout, with its rollout's group-normalised
    advantage."""
    samples = []
    for group in groups:
        advantages = group_advantages([r.reward for r in group], scale=scale)
        for rollout, advantage in zip(group, advantages, strict=True):
            for turn in rollout.trace.turns:
                if not turn.completion_token_ids:
                    continue  # an empty reply: nothing to train on
                n_prompt = len(turn.prompt_token_ids)
                samples.append(
                    TurnSample(
                        turn.prompt_token_ids,
                        turn.completion_token_ids,
                        turn.per_token_logps,
                        turn.loss_mask[n_prompt:],
                        advantage,
                    )
                )
    return samples


def completion_logps(
    model: Any, prompt_ids: list[int], completion_ids: list[int], temperature: float = 1.0
) -> torch.Tensor:
    """The model's logprob of each completion token after the prompt, at ``temperature`` (what
    vLLM's processed logprobs report; ``temperature <= 0`` reads the raw logits)."""
    device = next(model.parameters()).device
    ids = torch.tensor([prompt_ids + completion_ids], device=device)
    logits = model(input_ids=ids).logits[0, len(prompt_ids) - 1 : -1].float()
    if temperature > 0:
        logits = logits / temperature
    targets = torch.tensor(completion_ids, device=device).unsqueeze(-1)
    return torch.log_softmax(logits, dim=-1).gather(-1, targets).squeeze(-1)


def clipped_surrogate(
    new_logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantage: float,
    *,
    epsilon_low: float,
    epsilon_high: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's per-token loss ``-min(r A, clip(r, 1-eps_low, 1+eps_high) A)`` and the ratio ``r``."""
    ratio = torch.exp(new_logps - old_logps)
    clipped = torch.clamp(ratio, 1 - epsilon_low, 1 + epsilon_high)
    return -torch.minimum(ratio * advantage, clipped * advantage), ratio


class TraceGRPO:
    """GRPO steps on grouped rollouts for a ``transformers`` causal LM (any module whose
    ``model(input_ids=...)`` returns ``.logits``)."""

    def __init__(
        self,
        model: Any,
        *,
        learning_rate: float = 1e-6,
        temperature: float = 1.0,
        epsilon: float = 0.2,
        epsilon_high: float | None = None,
        max_grad_norm: float = 1.0,
        scale_rewards: bool = True,
        optimizer: torch.optim.Optimizer | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.epsilon_low = epsilon
        self.epsilon_high = epsilon if epsilon_high is None else epsilon_high
        self.max_grad_norm = max_grad_norm
        self.scale_rewards = scale_rewards
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = optimizer or torch.optim.AdamW(params, lr=learning_rate)
        self.steps = 0

    def _vocab_size(self) -> int | None:
        get = getattr(self.model, "get_input_embeddings", None)
        embeddings = get() if get is not None else None
        return int(embeddings.num_embeddings) if embeddings is not None else None

    def _check(self, samples: list[TurnSample]) -> int:
        tokens = sum(sum(s.mask) for s in samples)
        if tokens == 0:
            raise TraceTrainingError("no completion tokens to train on (every loss_mask is 0)")
        vocab = self._vocab_size()
        top = max(max(s.prompt_ids + s.completion_ids) for s in samples)
        if vocab is not None and top >= vocab:
            raise TraceTrainingError(
                f"token id {top} is outside the model's vocabulary of {vocab}: these traces were "
                "not tokenised for this model (train the model the engine served)"
            )
        return tokens

    def step(self, groups: Sequence[Sequence[Rollout]]) -> StepStats:
        """One optimizer step on every loss-masked token of ``groups`` (rollouts of one task)."""
        samples = turn_samples(groups, scale=self.scale_rewards)
        if not samples:
            raise TraceTrainingError("no replies to train on: the rollouts made no model calls")
        tokens = self._check(samples)
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        loss = ratio_sum = gap_sum = clipped = 0.0
        for sample in samples:
            mask = torch.tensor(sample.mask, dtype=torch.float32)
            new = completion_logps(
                self.model, sample.prompt_ids, sample.completion_ids, self.temperature
            ).cpu()
            old = torch.tensor(sample.old_logps, dtype=torch.float32)
            per_token, ratio = clipped_surrogate(
                new,
                old,
                sample.advantage,
                epsilon_low=self.epsilon_low,
                epsilon_high=self.epsilon_high,
            )
            part = (per_token * mask).sum() / tokens
            part.backward()
            loss += float(part.detach())
            with torch.no_grad():
                ratio_sum += float((ratio * mask).sum())
                gap_sum += float(((new - old).abs() * mask).sum())
                outside = (ratio < 1 - self.epsilon_low) | (ratio > 1 + self.epsilon_high)
                clipped += float((outside.float() * mask).sum())
        if not math.isfinite(loss):
            self.optimizer.zero_grad(set_to_none=True)
            raise TraceTrainingError(f"the loss is {loss}: no step taken")
        params = [p for p in self.model.parameters() if p.requires_grad]
        grad_norm = float(torch.nn.utils.clip_grad_norm_(params, self.max_grad_norm))
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.model.eval()
        self.steps += 1
        rewards = [r.reward for group in groups for r in group]
        return StepStats(
            step=self.steps,
            loss=loss,
            rollouts=len(rewards),
            turns=len(samples),
            tokens=tokens,
            reward_mean=statistics.fmean(rewards),
            ratio_mean=ratio_sum / tokens,
            clip_fraction=clipped / tokens,
            logp_gap=gap_sum / tokens,
            grad_norm=grad_norm,
        )


def load_policy(model_id: str, *, dtype: str | torch.dtype = "auto", device: str = "cpu") -> Any:
    """A causal LM to train, by Hub id or folder (``AutoModelForCausalLM.from_pretrained``)."""
    from transformers import AutoModelForCausalLM

    model: Any = AutoModelForCausalLM.from_pretrained(model_id, dtype=dtype)
    return model.to(device)


def engine_policy(engine: Engine) -> Any:
    """A trainable copy of the shipped test engine's tiny model (its config and its weights)."""
    return copy.deepcopy(engine.lm.model)


def serve_weights(engine: Engine, model: Any) -> None:
    """Put ``model``'s weights in the in-process test engine: its next calls (sampling, or
    scoring a scripted reply) use the trained policy. Call it between rollouts."""
    engine.lm.model.load_state_dict(model.state_dict())
