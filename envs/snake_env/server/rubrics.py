"""Snake's reward, explained: one component per kind of move, weighted by the reset options.

Each step has exactly one outcome: ``food`` (the snake ate), ``death`` (it hit a wall or its
body), ``step`` (any other move) or ``illegal_move`` (a turn straight back under
``illegal_move="end"``). Its component scores 1, the others 0, and the weights are the rewards
(``food_reward``, ``death_reward``, ``step_reward`` and the catalog's illegal-move penalty), so
the step's reward is the weight of what happened.
"""

from __future__ import annotations

from collections.abc import Callable

from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.rules import ILLEGAL_MOVE_PENALTY

OUTCOMES = ("food", "death", "step", "illegal_move")


def snake_rubric(
    outcome: Callable[[], str], *, food: float = 1.0, death: float = -1.0, step: float = 0.0
) -> WeightedSum:
    """The reward of a snake episode; ``outcome()`` names what the last step did."""

    def happened(kind: str) -> FnRubric:
        return FnRubric(lambda action, observation: float(outcome() == kind), name=kind)

    weights = {"food": food, "death": death, "step": step, "illegal_move": ILLEGAL_MOVE_PENALTY}
    return WeightedSum({kind: happened(kind) for kind in OUTCOMES}, weights)
