"""The reward, explained: sumo-rl's reward functions as components, one of them weighted 1.

Every step measures each of sumo-rl's reward functions over all traffic lights (summed; the
average speed is averaged) and reports them as ``metadata["reward_components"]``:

- ``diff_waiting_time``: sumo-rl's default, the drop in accumulated waiting time (s / 100) of
  the vehicles on the lights' incoming lanes since the last step;
- ``waiting_time``: minus that accumulated waiting time (s / 100) now;
- ``queue``: minus the number of halted vehicles on the incoming lanes;
- ``pressure``: vehicles on the outgoing lanes minus vehicles on the incoming lanes;
- ``average_speed``: mean speed / allowed speed of the vehicles on the incoming lanes.

The reset option ``reward_fn`` names the component that is the reward (weight 1, the others
0), as sumo-rl's ``reward_fn`` does: ``diff-waiting-time`` by default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from openenv.core.rubrics import FnRubric, WeightedSum

RewardFn = Literal["diff-waiting-time", "queue", "pressure", "average-speed"]
COMPONENTS = ("diff_waiting_time", "waiting_time", "queue", "pressure", "average_speed")


def component_of(reward_fn: str) -> str:
    """The component name of a sumo-rl reward function name (``"diff-waiting-time"``)."""
    return reward_fn.replace("-", "_")


def sumo_rubric(measures: Callable[[], Mapping[str, float]], reward_fn: str) -> WeightedSum:
    """The reward of a step; ``measures()`` gives the step's value of every component."""

    def measured(name: str) -> FnRubric:
        return FnRubric(lambda action, observation: float(measures().get(name, 0.0)), name=name)

    chosen = component_of(reward_fn)
    weights = {name: float(name == chosen) for name in COMPONENTS}
    return WeightedSum({name: measured(name) for name in COMPONENTS}, weights)
