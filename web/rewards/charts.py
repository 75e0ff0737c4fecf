"""Reward-debugging charts as inline SVG: each step's reward stacked by component, and two runs'
reward curves compared. Nothing is fetched; colours come from :mod:`openenv.web.rewards.components`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from openenv.web.rewards.components import colours, component_names, step_components
from openenv.web.rewards.sparkline import Bucket, envelope

WIDTH, HEIGHT, PAD, LEGEND, LEFT, ROW = 480, 170, 10, 22, 40, 14
MAX_BARS = 600  # every step drawn up to here; beyond, min/max buckets (see stacked_chart_svg)
OTHER = "reward without components"
OTHER_COLOUR = "#9CA3AF"
RUN_COLOURS = ("#7C3AED", "#0F766E")
KEPT_CONTRIBUTIONS = 4
_CONTRIBUTIONS: dict[tuple[int, int], tuple[Sequence[Any], Any]] = {}


def contributions(steps: Sequence[dict[str, Any]]) -> tuple[list[str], list[dict[str, float]]]:
    """Component names and, per step, {name: weight · score}. A step whose reward has no
    components contributes its whole reward under :data:`OTHER`.

    Recorded steps never change, so the answer for the same list at the same length is kept
    (a few lists): scrubbing a long episode computes it once, not on every move."""
    key = (id(steps), len(steps))
    kept = _CONTRIBUTIONS.get(key)
    if kept is not None and kept[0] is steps:
        return kept[1]
    found = _contributions(steps)
    _CONTRIBUTIONS[key] = (steps, found)
    while len(_CONTRIBUTIONS) > KEPT_CONTRIBUTIONS:
        _CONTRIBUTIONS.pop(next(iter(_CONTRIBUTIONS)))
    return found


def _contributions(steps: Sequence[dict[str, Any]]) -> tuple[list[str], list[dict[str, float]]]:
    names = component_names(steps)
    rows: list[dict[str, float]] = []
    for step in steps:
        parts = {c.name: c.contribution for c in step_components(step)}
        if not parts and step.get("reward"):
            parts = {OTHER: float(step["reward"])}
        rows.append(parts)
    if any(OTHER in row for row in rows):
        names.append(OTHER)
    return names, rows


def stacked_chart_svg(steps: Sequence[dict[str, Any]], selected: int | None = None) -> str:
    """Per step, positive contributions stacked up from zero and negative ones down; the
    reward (their sum) as a line. Each step is a click target carrying ``data-step``.

    Up to :data:`MAX_BARS` steps every step is drawn. A longer episode is downsampled into
    buckets of consecutive steps, never averaged: each bucket shows the range of its rewards
    (a grey bar from the lowest to the highest) and, in colour, the parts of its step of
    largest reward in magnitude; the line becomes two, the highest and the lowest reward."""
    if not steps:
        return _empty("reward components (no steps yet)")
    names, rows = contributions(steps)
    colour_of = {**colours([n for n in names if n != OTHER]), OTHER: OTHER_COLOUR}
    totals = [float(s.get("reward") or 0.0) for s in steps]
    buckets = envelope(totals, MAX_BARS)
    size = buckets[0].last - buckets[0].first + 1
    shown = [rows[_extreme(totals, b)] for b in buckets]
    low, high = _extent(shown, [t for b in buckets for t in (b.low, b.high)])
    plot = HEIGHT - LEGEND - 2 * PAD

    def y(value: float) -> float:
        return PAD + (high - value) / (high - low) * plot

    slot = (WIDTH - LEFT - PAD) / len(buckets)
    bars = "".join(
        _stack(i, b, shown[i], slot, y, names, colour_of, selected) for i, b in enumerate(buckets)
    )
    line = _line([b.high for b in buckets], slot, y)
    if size > 1:
        line += _line([b.low for b in buckets], slot, y)
    legend, legend_rows = _legend(names, colour_of)
    label = f"reward components over {len(steps)} steps" + (
        f" (downsampled: each bar spans the lowest to highest reward of {size} steps, "
        "coloured by the parts of its largest)"
        if size > 1
        else ""
    )
    return (
        f'<svg class="oe-stacked" viewBox="0 0 {WIDTH} {HEIGHT + (legend_rows - 1) * ROW}" '
        f'role="img" aria-label="{html.escape(label)}" data-steps="{len(steps)}" '
        f'data-bucket="{size}"><title>{html.escape(label)}</title>'
        f'<line x1="{LEFT}" x2="{WIDTH - PAD}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#94A3B8" '
        f'stroke-width="0.6"/>{_axis(low, high, y)}{bars}{line}{legend}{_note(size)}</svg>'
    )


def _extreme(totals: list[float], bucket: Bucket) -> int:
    """The step of ``bucket`` whose reward is largest in magnitude (the first of equals)."""
    return max(range(bucket.first, bucket.last + 1), key=lambda i: abs(totals[i]))


def _line(values: list[float], slot: float, y) -> str:
    points = " ".join(f"{LEFT + (i + 0.5) * slot:.1f},{y(v):.1f}" for i, v in enumerate(values))
    return (
        '<polyline class="oe-total-line" fill="none" stroke="#111827" stroke-width="1.4" '
        f'points="{points}"/>'
    )


def _note(size: int) -> str:
    if size == 1:
        return ""
    said = f"downsampled: min–max of each {size} steps"
    return (
        f'<text class="oe-chart-note" x="{WIDTH - PAD}" y="{PAD + 2}" text-anchor="end" '
        f'font-size="9" fill="#64748B">{html.escape(said)}</text>'
    )


def _stack(
    i: int,
    bucket: Bucket,
    row: dict[str, float],
    slot: float,
    y,
    names: list[str],
    colour_of: dict[str, str],
    selected: int | None,
) -> str:
    x, width = LEFT + i * slot + slot * 0.12, max(slot * 0.76, 0.6)
    rects = []
    first, last = bucket.first, bucket.last
    if last > first:  # the range of the bucket's rewards, behind its largest step's parts
        top, bottom = sorted((y(max(bucket.high, 0.0)), y(min(bucket.low, 0.0))))
        rects.append(
            f'<rect class="oe-range" x="{x:.1f}" y="{top:.2f}" width="{width:.2f}" '
            f'height="{max(bottom - top, 0.4):.2f}" fill="#CBD5E1"/>'
        )
    up = down = 0.0
    for name in names:
        value = row.get(name, 0.0)
        if value == 0:
            continue
        base = up if value > 0 else down
        top, bottom = sorted((y(base), y(base + value)))
        rects.append(
            f'<rect x="{x:.1f}" y="{top:.2f}" width="{width:.2f}" '
            f'height="{max(bottom - top, 0.4):.2f}" fill="{colour_of[name]}" '
            f'data-component="{html.escape(name)}"/>'
        )
        up, down = (up + value, down) if value > 0 else (up, down + value)
    tip = "; ".join(f"{n} {v:+.4g}" for n, v in row.items() if v) or "no reward"
    if last > first:
        step_label = f"steps {first + 1}–{last + 1}"
        tip = f"reward from {bucket.low:+.4g} to {bucket.high:+.4g}; the largest: {tip}"
    else:
        step_label = f"step {first + 1}"
    picked = selected is not None and first <= selected <= last
    hit = (
        f'<rect class="oe-hit{" oe-picked" if picked else ""}" x="{LEFT + i * slot:.1f}" '
        f'y="{PAD}" width="{slot:.2f}" height="{HEIGHT - LEGEND - 2 * PAD}" '
        f'fill="{"#FDE68A" if picked else "transparent"}" fill-opacity="0.5"/>'
    )
    return (
        f'<g class="oe-bar" data-step="{first}"><title>{html.escape(step_label)}: '
        f"{html.escape(tip)}</title>{hit}{''.join(rects)}</g>"
    )


def _extent(rows: list[dict[str, float]], totals: list[float]) -> tuple[float, float]:
    highs = [sum(v for v in row.values() if v > 0) for row in rows]
    lows = [sum(v for v in row.values() if v < 0) for row in rows]
    low, high = min(0.0, *lows, *totals), max(0.0, *highs, *totals)
    return (low, high) if high > low else (low - 1.0, high + 1.0)


def _legend(names: list[str], colour_of: dict[str, str]) -> tuple[str, int]:
    """The legend (wrapped into rows that fit the width) and how many rows it took."""
    entries = [(n, colour_of[n], "") for n in names] + [("reward", "#111827", "line")]
    return _legend_rows(entries)


def _legend_rows(entries: list[tuple[str, str, str]]) -> tuple[str, int]:
    """Legend entries (label, colour, "" for a swatch / "line" / "dash") laid out in rows."""
    items, x, row = [], PAD, 0
    for label, colour, shape in entries:
        width = 22 + 6 * len(label)
        if x > PAD and x + width > WIDTH - PAD:
            x, row = PAD, row + 1
        top = HEIGHT - 15 + row * ROW
        if shape:
            dash = ' stroke-dasharray="5 3"' if shape == "dash" else ""
            mark = (
                f'<line x1="{x}" x2="{x + 10}" y1="{top + 4.5}" y2="{top + 4.5}" '
                f'stroke="{colour}" stroke-width="2"{dash}/>'
            )
        else:
            mark = f'<rect x="{x}" y="{top}" width="9" height="9" fill="{colour}"/>'
        items.append(
            f'<g class="oe-legend-entry">{mark}<text x="{x + 13}" y="{top + 8}" '
            f'font-size="10" fill="#1F2937">{html.escape(label)}</text></g>'
        )
        x += width
    return "".join(items), row + 1


def compare_chart_svg(runs: Sequence[tuple[str, Sequence[float]]]) -> str:
    """Two (or more) runs' returns over the steps, overlaid on the same axes, with a legend.

    ``runs`` is a sequence of (label, rewards per step); each run gets a cumulative line and
    dots for its per-step rewards, so where two runs of one seed part ways is easy to spot.
    """
    runs = [(label, [float(r) for r in rewards]) for label, rewards in runs]
    if not any(rewards for _, rewards in runs):
        return _empty("reward curves (no steps yet)")
    curves = [(label, rewards, list(accumulate(rewards))) for label, rewards in runs]
    values = [v for _, r, c in curves for v in (*r, *c)]
    low, high = min(0.0, *values), max(0.0, *values)
    high = high if high > low else low + 1.0
    longest = max(len(r) for _, r, _ in curves)
    plot = HEIGHT - LEGEND - 2 * PAD

    def y(value: float) -> float:
        return PAD + (high - value) / (high - low) * plot

    def xy(i: int, value: float) -> str:
        return f"{LEFT + (i + 1) / longest * (WIDTH - LEFT - PAD):.1f},{y(value):.1f}"

    zero = y(0.0)
    lines = []
    for n, (label, _, returns) in enumerate(curves):
        colour, dash = RUN_COLOURS[n % len(RUN_COLOURS)], ' stroke-dasharray="5 3"' if n else ""
        points = " ".join([f"{LEFT},{zero:.1f}", *(xy(i, v) for i, v in enumerate(returns))])
        lines.append(
            f'<polyline class="oe-run" data-run="{n}" data-label="{html.escape(label)}" '
            f'fill="none" stroke="{colour}" stroke-width="1.8"{dash} points="{points}">'
            f"<title>{html.escape(label)}: return {(returns[-1] if returns else 0.0):+.4g}"
            "</title></polyline>"
        )
    legend, rows = _run_legend([label for label, _, _ in curves])
    label = "returns compared: " + " vs ".join(label for label, _, _ in curves)
    return (
        f'<svg class="oe-compare" viewBox="0 0 {WIDTH} {HEIGHT + (rows - 1) * ROW}" role="img" '
        f'aria-label="{html.escape(label)}"><title>{html.escape(label)}</title>'
        f'<line x1="{LEFT}" x2="{WIDTH - PAD}" y1="{zero:.1f}" y2="{zero:.1f}" stroke="#94A3B8" '
        f'stroke-width="0.6"/>{_axis(low, high, y)}'
        f"{''.join(lines)}{legend}</svg>"
    )


def first_divergence(a: Sequence[float], b: Sequence[float]) -> int | None:
    """The first step index where two reward sequences differ (or one ends), else None."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if abs(float(x) - float(y)) > 1e-9:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _run_legend(labels: list[str]) -> tuple[str, int]:
    return _legend_rows(
        [
            (label, RUN_COLOURS[n % len(RUN_COLOURS)], "dash" if n else "line")
            for n, label in enumerate(labels)
        ]
    )


def _axis(low: float, high: float, y) -> str:
    """Value labels left of the plot: zero, then the top and bottom unless they would touch."""
    kept: list[float] = []
    for value in (0.0, high, low):
        if all(abs(y(value) - y(other)) >= 10 for other in kept):
            kept.append(value)
    return "".join(
        f'<text class="oe-axis" x="{LEFT - 4}" y="{y(v) + 3:.1f}" text-anchor="end" '
        f'font-size="9" fill="#64748B">{"0" if v == 0 else f"{v:+.3g}"}</text>'
        for v in sorted(kept, reverse=True)
    )


def _empty(label: str) -> str:
    return (
        f'<svg class="oe-stacked" viewBox="0 0 {WIDTH} 60" role="img" '
        f'aria-label="{html.escape(label)}"><text x="50%" y="55%" text-anchor="middle" '
        f'font-size="11" fill="#64748B">no steps yet</text></svg>'
    )
