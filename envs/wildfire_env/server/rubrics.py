"""Wildfire's reward, explained: what each step cost and saved, as named components.

| component | score | weight |
|---|---|---|
| ``time`` | 1 on every carried-out step | -0.01 |
| ``extinguished`` | burning cells the water put out | +0.1 |
| ``spread`` | cells that caught fire this tick | -0.1 |
| ``land_saved`` | at the end: ``saved_ratio`` (share of cells still vegetated) | +1 |
| ``contained`` | at the end: 1 if no cell burns | +0.5 |
| ``illegal_move`` | 1 for an illegal action under ``illegal_move="end"`` | -1 |

An illegal action that ends the episode scores only ``illegal_move``: no time passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.rules import ILLEGAL_MOVE_PENALTY

WEIGHTS = {
    "time": -0.01,
    "extinguished": 0.1,
    "spread": -0.1,
    "land_saved": 1.0,
    "contained": 0.5,
    "illegal_move": ILLEGAL_MOVE_PENALTY,
}


@dataclass(frozen=True)
class Tally:
    """What the last step did that the observation does not show."""

    put_out: int = 0
    ignited: int = 0
    illegal: bool = False


def wildfire_rubric(tally: Callable[[], Tally]) -> WeightedSum:
    """The reward of a wildfire step; ``tally()`` describes the step just taken."""

    def ended(observation: Any) -> bool:
        return bool(observation.done) and not tally().illegal

    scores: dict[str, Callable[[Any, Any], float]] = {
        "time": lambda a, o: 0.0 if tally().illegal else 1.0,
        "extinguished": lambda a, o: float(tally().put_out),
        "spread": lambda a, o: float(tally().ignited),
        "land_saved": lambda a, o: float(o.saved_ratio) if ended(o) else 0.0,
        "contained": lambda a, o: float(ended(o) and o.burning_count == 0),
        "illegal_move": lambda a, o: float(tally().illegal),
    }
    return WeightedSum({name: FnRubric(fn, name) for name, fn in scores.items()}, WEIGHTS)
