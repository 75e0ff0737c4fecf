"""Reward components: what a rubric's score is made of, as carried on the wire.

When an environment's reward comes from a rubric, ``observation.metadata`` carries
``reward_components`` ({name: score}) and ``reward_weights`` ({name: weight}), and
``observation.reward == Σ weight · score`` always (``check_env`` verifies it).
"""

from __future__ import annotations

from typing import Any

from openenv.core.rubrics.base import Rubric
from openenv.core.rubrics.containers import WeightedSum

COMPONENTS_KEY = "reward_components"
WEIGHTS_KEY = "reward_weights"
TOLERANCE = 1e-6


def components_of(rubric: Rubric) -> tuple[dict[str, float], dict[str, float]]:
    """Break the rubric's last score into named components and weights."""
    if isinstance(rubric, WeightedSum):
        weights = rubric.weights
        scores = {name: float(child.last_score or 0.0) for name, child in rubric.named_children()}
        return scores, weights
    return {rubric.name: float(rubric.last_score or 0.0)}, {rubric.name: 1.0}


def weighted_total(metadata: dict[str, Any]) -> float | None:
    """Σ weight · score of the components in ``metadata``, or None when there are none."""
    components = metadata.get(COMPONENTS_KEY)
    if not isinstance(components, dict):
        return None
    weights = metadata.get(WEIGHTS_KEY) or {}
    return sum(float(v) * float(weights.get(k, 1.0)) for k, v in components.items())


def attach(metadata: dict[str, Any], scores: dict[str, float], weights: dict[str, float]) -> None:
    metadata[COMPONENTS_KEY] = dict(scores)
    metadata[WEIGHTS_KEY] = dict(weights)


def reconcile(metadata: dict[str, Any], reward: float | None, label: str) -> None:
    """If a later stage (a transform) changed the reward, record the change as a component."""
    total = weighted_total(metadata)
    if total is None or reward is None:
        return
    delta = float(reward) - total
    if abs(delta) > TOLERANCE:
        metadata[COMPONENTS_KEY][label] = metadata[COMPONENTS_KEY].get(label, 0.0) + delta
        metadata[WEIGHTS_KEY][label] = 1.0
