"""The reward chart: an inline SVG drawn here (no plotting library, nothing fetched).

Every step is drawn up to :data:`MAX_STEPS` steps. A longer episode is downsampled into
buckets of consecutive steps, each drawn as the *range* of what happened in it (a bar from its
lowest to its highest reward, and the return's lowest and highest), never as a mean: a -1 among
zeros is still drawn at -1. The chart says when it is downsampled (:func:`envelope`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple

WIDTH, HEIGHT, PAD = 320, 120, 8
MAX_STEPS = 1000  # drawn one bar per step up to here; beyond, min/max buckets
BUCKETS = WIDTH - 2 * PAD  # how many buckets a longer episode is drawn in (one per unit)


class Bucket(NamedTuple):
    """Consecutive steps ``first`` .. ``last`` (0-based, inclusive) and their extremes."""

    first: int
    last: int
    low: float
    high: float


def envelope(values: Sequence[float], most: int) -> list[Bucket]:
    """``values`` in at most ``most`` buckets of equal size (the last may be shorter), each
    with its lowest and highest value; one bucket per value when they fit."""
    size = max(1, -(-len(values) // most))
    if size == 1:  # a watched episode's chart is redrawn often: no slicing per step
        return [Bucket(i, i, v, v) for i, v in enumerate(values)]
    return [
        Bucket(start, min(start + size, len(values)) - 1, min(chunk), max(chunk))
        for start in range(0, len(values), size)
        if (chunk := values[start : start + size])
    ]


def reward_chart_svg(rewards: Sequence[float]) -> str:
    """Bars for each step's reward and a line for the cumulative return (ranges of buckets of
    steps past :data:`MAX_STEPS`, said in the chart)."""
    if not rewards:
        return (
            f'<svg class="oe-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            'aria-label="reward chart (no steps yet)"><text x="50%" y="55%" '
            'text-anchor="middle" class="oe-chart-empty">no steps yet</text></svg>'
        )
    rewards = [float(r) for r in rewards]
    returns = list(accumulate(rewards))
    low = min(0.0, *rewards, *returns)
    high = max(0.0, *rewards, *returns)
    span = (high - low) or 1.0

    def y(value: float) -> float:
        return PAD + (high - value) / span * (HEIGHT - 2 * PAD)

    most = MAX_STEPS if len(rewards) <= MAX_STEPS else BUCKETS
    bars, ret = envelope(rewards, most), envelope(returns, most)
    slot = (WIDTH - 2 * PAD) / len(bars)
    drawn = "".join(_bars(i, b, slot, y) for i, b in enumerate(bars))
    zero = y(0.0)
    start = f"{PAD},{zero:.1f} "
    upper = " ".join(f"{PAD + (i + 1) * slot:.1f},{y(b.high):.1f}" for i, b in enumerate(ret))
    lines = f'<polyline class="oe-chart-return" points="{start}{upper}"/>'
    size = bars[0].last - bars[0].first + 1
    label = f"reward per step and return over {len(rewards)} steps"
    note = ""
    if size > 1:
        lower = " ".join(f"{PAD + (i + 1) * slot:.1f},{y(b.low):.1f}" for i, b in enumerate(ret))
        lines += f'<polyline class="oe-chart-return" points="{start}{lower}"/>'
        said = f"downsampled: each bar spans the lowest to highest reward of {size} steps"
        label += f" ({said})"
        note = (
            f'<text class="oe-chart-note" x="{WIDTH - PAD}" y="{PAD + 6}" text-anchor="end" '
            f'font-size="9" fill="#64748B">{html.escape(said)}</text>'
        )
    return (
        f'<svg class="oe-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{html.escape(label)}" data-steps="{len(rewards)}" '
        f'data-bucket="{size}"><title>{html.escape(label)}</title>'
        f'<line class="oe-chart-zero" x1="{PAD}" x2="{WIDTH - PAD}" y1="{zero:.1f}" '
        f'y2="{zero:.1f}"/>{drawn}{lines}{note}</svg>'
    )


def _bars(i: int, bucket: Bucket, slot: float, y) -> str:
    """The bucket's bar: up from zero to its highest reward when that is positive, down to its
    lowest when that is negative (a bucket holding both has both)."""
    width = max(slot * 0.7, 0.8)
    x = PAD + i * slot + slot * 0.15
    out = []
    if bucket.high > 0 or bucket.low >= 0:  # a step of 0 still gets its sliver
        out.append(_rect("pos", x, width, y(max(bucket.high, 0.0)), y(0.0)))
    if bucket.low < 0:
        out.append(_rect("neg", x, width, y(0.0), y(bucket.low)))
    return "".join(out)


def _rect(kind: str, x: float, width: float, top: float, bottom: float) -> str:
    return (
        f'<rect class="oe-bar-{kind}" x="{x:.1f}" y="{top:.1f}" width="{width:.1f}" '
        f'height="{max(bottom - top, 0.5):.1f}"/>'
    )
