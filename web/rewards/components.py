"""A step's reward, broken into the components its rubric reported, as data and as a table.

Rubric-based environments put ``reward_components`` ({name: score}) and ``reward_weights``
({name: weight}) in the observation's metadata; the reward is Σ weight · score. A recorded step
(as exported: ``action``, ``observation``, ``reward``, ``done``) carries them in
``step["observation"]["metadata"]``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openenv.core.rubrics.components import COMPONENTS_KEY, WEIGHTS_KEY

# Okabe–Ito: distinguishable with the common colour-vision deficiencies, legible on white.
PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#8C6D1F", "#5B5B5B",
)  # fmt: skip
NO_COMPONENTS = "This step's reward has no components (the environment reports no rubric)."


@dataclass(frozen=True)
class Component:
    """One named part of a step's reward."""

    name: str
    score: float
    weight: float

    @property
    def contribution(self) -> float:
        return self.score * self.weight


def step_components(step: dict[str, Any]) -> list[Component]:
    """The components of a recorded step, in the order the environment reported them."""
    observation = step.get("observation")
    metadata = observation.get("metadata") if isinstance(observation, dict) else None
    if not isinstance(metadata, dict):
        return []
    scores = metadata.get(COMPONENTS_KEY)
    if not isinstance(scores, dict):
        return []
    weights = metadata.get(WEIGHTS_KEY)
    weights = weights if isinstance(weights, dict) else {}
    return [
        Component(str(name), _number(score), _number(weights.get(name, 1.0)))
        for name, score in scores.items()
    ]


def component_names(steps: Sequence[dict[str, Any]]) -> list[str]:
    """Every component name seen over an episode, in order of first appearance."""
    names: dict[str, None] = {}
    for step in steps:
        for component in step_components(step):
            names.setdefault(component.name, None)
    return list(names)


def colours(names: Sequence[str]) -> dict[str, str]:
    """A stable colour per component name (the palette repeats after eight)."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


def components_table_html(
    step: dict[str, Any], index: int, colour_of: dict[str, str] | None = None
) -> str:
    """A table of one step's components: score, weight, weight·score, and their total."""
    components = step_components(step)
    reward = step.get("reward")
    caption = f"<caption>Step {index + 1}: reward {_fmt(reward)}</caption>"
    if not components:
        return (
            f'<table class="oe-components">{caption}<tbody><tr><td class="oe-more">'
            f"{html.escape(NO_COMPONENTS)}</td></tr></tbody></table>"
        )
    colour_of = colour_of or colours([c.name for c in components])
    rows = "".join(_row(c, colour_of.get(c.name, PALETTE[-1])) for c in components)
    total = sum(c.contribution for c in components)
    return (
        f'<table class="oe-components" data-step="{index}">{caption}<thead><tr>'
        "<th>component</th><th>score</th><th>weight</th><th>weight · score</th></tr></thead>"
        f'<tbody>{rows}</tbody><tfoot><tr><th colspan="3">total (= reward)</th>'
        f'<td class="oe-total">{_fmt(total)}</td></tr></tfoot></table>'
    )


def _row(component: Component, colour: str) -> str:
    kind = "pos" if component.contribution > 0 else "neg" if component.contribution < 0 else "zero"
    return (
        f'<tr class="oe-comp-{kind}" data-component="{html.escape(component.name)}">'
        f'<td><i class="oe-swatch" style="background:{colour}"></i>'
        f"{html.escape(component.name)}</td><td>{_fmt(component.score)}</td>"
        f"<td>{_fmt(component.weight)}</td><td>{_fmt(component.contribution)}</td></tr>"
    )


def _number(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    number = float(value)
    if number == 0:
        return "0"
    return f"{number:+.4g}"
