"""The reward chart: an inline SVG drawn here (no plotting library, nothing fetched)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from itertools import accumulate

WIDTH, HEIGHT, PAD = 320, 120, 8
MAX_POINTS = 160


def reward_chart_svg(rewards: Sequence[float]) -> str:
    """Bars for each step's reward and a line for the cumulative return."""
    if not rewards:
        return (
            f'<svg class="oe-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            'aria-label="reward chart (no steps yet)"><text x="50%" y="55%" '
            'text-anchor="middle" class="oe-chart-empty">no steps yet</text></svg>'
        )
    returns = list(accumulate(rewards))
    low = min(0.0, *rewards, *returns)
    high = max(0.0, *rewards, *returns)
    span = (high - low) or 1.0

    def y(value: float) -> float:
        return PAD + (high - value) / span * (HEIGHT - 2 * PAD)

    step = (WIDTH - 2 * PAD) / max(len(rewards), 1)
    bars = "".join(_bar(i, r, step, y) for i, r in _thinned(rewards))
    points = " ".join(f"{PAD + (i + 1) * step:.1f},{y(v):.1f}" for i, v in _thinned(returns))
    zero = y(0.0)
    label = f"reward per step and return over {len(rewards)} steps"
    return (
        f'<svg class="oe-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{html.escape(label)}">'
        f'<line class="oe-chart-zero" x1="{PAD}" x2="{WIDTH - PAD}" y1="{zero:.1f}" '
        f'y2="{zero:.1f}"/>{bars}'
        f'<polyline class="oe-chart-return" points="{PAD},{zero:.1f} {points}"/></svg>'
    )


def _bar(i: int, reward: float, step: float, y) -> str:
    top, bottom = sorted((y(reward), y(0.0)))
    kind = "pos" if reward >= 0 else "neg"
    width = max(step * 0.7, 0.8)
    return (
        f'<rect class="oe-bar-{kind}" x="{PAD + i * step + step * 0.15:.1f}" y="{top:.1f}" '
        f'width="{width:.1f}" height="{max(bottom - top, 0.5):.1f}"/>'
    )


def _thinned(values: Sequence[float]) -> list[tuple[int, float]]:
    """At most MAX_POINTS (index, value) pairs, always keeping the last one."""
    stride = max(1, -(-len(values) // MAX_POINTS))
    picked = list(range(0, len(values), stride))
    if picked[-1] != len(values) - 1:
        picked.append(len(values) - 1)
    return [(i, values[i]) for i in picked]
