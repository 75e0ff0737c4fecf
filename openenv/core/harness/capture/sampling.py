"""The sampling policy of a training rollout: a temperature, and no truncation.

A captured logprob is the engine's *processed* one: taken after top-p, top-k, min-p and the
penalties have reshaped the distribution. A trainer recomputes logprobs over the full
vocabulary at the same temperature, so any of those knobs left on makes every importance ratio
wrong (uniformly too high under top-p, reordered under the penalties). A training policy is
therefore a temperature with every other knob at its no-op value (:data:`NON_POLICY_SAMPLING`);
:func:`training_sampling` checks one and returns it whole, as ``openenv`` 0.10 does (TRL's
``HarnessRolloutWorker`` imports it from ``openenv.core.harness.capture.upstream``).

An eval run may pin its own sampling too (:func:`evaluation_sampling`: a temperature, top-p,
top-k, within sane ranges); its logprobs are then not the full-vocabulary policy's, so a
session so pinned is captured as eval only, never trained on.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

# Each knob that reshapes the distribution, at the value that turns it off.
NON_POLICY_SAMPLING: dict[str, float | int] = {
    "top_p": 1.0,
    "top_k": -1,
    "min_p": 0.0,
    "frequency_penalty": 0.0,
    "presence_penalty": 0.0,
    "repetition_penalty": 1.0,
}


SAMPLING_KEYS = ("temperature", *NON_POLICY_SAMPLING)


def pin_sampling(
    chat: dict[str, Any], policy: dict[str, float | int]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``chat`` with a training ``policy`` (:func:`training_sampling`'s) over what the agent
    asked: ``(chat sent, requested, submitted)``, the last two being the sampling fields the
    agent asked for and the ones sent. Without a policy the agent's own ask is sent."""
    requested = {k: chat[k] for k in SAMPLING_KEYS if k in chat}
    if not policy:
        return chat, requested, dict(requested)
    return {**chat, **policy}, requested, dict(policy)


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def training_sampling(sampling: dict[str, Any] | None) -> dict[str, float | int]:
    """The full training policy for ``sampling``: ``{}`` for ``None``, else its temperature and
    every :data:`NON_POLICY_SAMPLING` knob at its no-op value.

    Raises ``ValueError`` naming the problem: not a dict, an unknown field, no finite positive
    ``temperature``, a knob that is not a number or truncates (``top_k`` 0 means off too).
    """
    if sampling is None:
        return {}
    if not isinstance(sampling, dict):
        raise ValueError("sampling must be a JSON object")
    unknown = sorted(set(sampling) - {"temperature", *NON_POLICY_SAMPLING})
    if unknown:
        raise ValueError(f"unsupported training sampling fields: {', '.join(unknown)}")
    temperature = sampling.get("temperature")
    if not _number(temperature) or not 0 < temperature < math.inf:
        raise ValueError("training sampling requires a finite positive temperature")
    for key, value in sampling.items():
        if key == "temperature":
            continue
        if not _number(value):
            raise ValueError(f"training sampling {key} must be a number")
        if key == "top_k" and value == 0:
            continue
        if value != NON_POLICY_SAMPLING[key]:
            raise ValueError(
                f"training sampling requires {key}={NON_POLICY_SAMPLING[key]} (got {value}): "
                "the captured logprobs must be the full-vocabulary policy's"
            )
    return {"temperature": float(temperature), **NON_POLICY_SAMPLING}


EVAL_SAMPLING = ("temperature", "top_p", "top_k")


def evaluation_sampling(sampling: dict[str, Any] | None) -> dict[str, float | int]:
    """An eval run's sampling, checked: ``{}`` for ``None``, else only ``temperature`` (0 to 2),
    ``top_p`` (0 excluded to 1) and ``top_k`` (-1, off, or a positive integer).

    Raises ``ValueError`` naming the problem."""
    if sampling is None:
        return {}
    if not isinstance(sampling, dict):
        raise ValueError("eval_sampling must be a JSON object")
    unknown = sorted(set(sampling) - set(EVAL_SAMPLING))
    if unknown:
        raise ValueError(
            f"eval_sampling takes {', '.join(EVAL_SAMPLING)} only, not {', '.join(unknown)}"
        )
    for key, value in sampling.items():
        if not _number(value) or not math.isfinite(value):
            raise ValueError(f"eval_sampling {key} must be a finite number")
    if not 0 <= sampling.get("temperature", 1.0) <= 2:
        raise ValueError("eval_sampling temperature must be between 0 and 2")
    if not 0 < sampling.get("top_p", 1.0) <= 1:
        raise ValueError("eval_sampling top_p must be in (0, 1]")
    top_k = sampling.get("top_k", -1)
    if not isinstance(top_k, int) or (top_k != -1 and top_k < 1):
        raise ValueError("eval_sampling top_k must be -1 (off) or a positive integer")
    return dict(sampling)
