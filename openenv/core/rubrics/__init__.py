"""Composable reward functions (rubrics), computed inside environments, never on clients."""

from openenv.core.rubrics.base import FnRubric, HookHandle, Rubric
from openenv.core.rubrics.components import (
    COMPONENTS_KEY,
    WEIGHTS_KEY,
    components_of,
    weighted_total,
)
from openenv.core.rubrics.containers import Gate, RubricDict, RubricList, Sequential, WeightedSum
from openenv.core.rubrics.llm_judge import LLMJudge
from openenv.core.rubrics.trajectory import TrajectoryRubric

__all__ = [
    "COMPONENTS_KEY",
    "WEIGHTS_KEY",
    "FnRubric",
    "Gate",
    "HookHandle",
    "LLMJudge",
    "Rubric",
    "RubricDict",
    "RubricList",
    "Sequential",
    "TrajectoryRubric",
    "WeightedSum",
    "components_of",
    "weighted_total",
]
