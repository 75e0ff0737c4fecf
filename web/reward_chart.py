"""Reward-debugging charts as inline SVG: each step's reward stacked by component, and two runs'
reward curves compared. Nothing is fetched; colours come from :mod:`web.rewards`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from web.rewards import colours, component_names, step_components

WIDTH, HEIGHT, PAD, LEGEND = 480, 170, 10, 22
MAX_BARS = 240
OTHER = "reward without components"
OTHER_COLOUR = "#9CA3AF"
RUN_COLOURS = ("#7C3AED", "#0F766E")


def contributions(steps: Sequence[dict[str, Any]]) -> tuple[list[str], list[dict[str, float]]]:
    """Component names and, per step, {name: weight · score}. A step whose reward has no
    components contributes its whole reward under :data:`OTHER`."""
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
    reward (their sum) as a line. Each step is a click target carrying ``data-step``."""
    if not steps:
        return _empty("reward components (no steps yet)")
    names, rows = contributions(steps)
    colour_of = {**colours([n for n in names if n != OTHER]), OTHER: OTHER_COLOUR}
    totals = [float(s.get("reward") or 0.0) for s in steps]
    bucket = -(-len(rows) // MAX_BARS)
    rows, totals = _bucketed(rows, bucket), _bucketed_totals(totals, bucket)
    low, high = _extent(rows, totals)
    plot = HEIGHT - LEGEND - 2 * PAD

    def y(value: float) -> float:
        return PAD + (high - value) / (high - low) * plot

    slot = (WIDTH - 2 * PAD) / len(rows)
    bars = "".join(
        _stack(i, row, slot, y, names, colour_of, bucket, selected) for i, row in enumerate(rows)
    )
    line = " ".join(f"{PAD + (i + 0.5) * slot:.1f},{y(t):.1f}" for i, t in enumerate(totals))
    label = f"reward components over {len(steps)} steps" + (
        f" (each bar: mean of {bucket} steps)" if bucket > 1 else ""
    )
    return (
        f'<svg class="oe-stacked" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{html.escape(label)}" data-steps="{len(steps)}">'
        f"<title>{html.escape(label)}</title>"
        f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#94A3B8" '
        f'stroke-width="0.6"/>{bars}<polyline class="oe-total-line" fill="none" '
        f'stroke="#111827" stroke-width="1.4" points="{line}"/>'
        f"{_legend(names, colour_of)}</svg>"
    )


def _stack(
    i: int,
    row: dict[str, float],
    slot: float,
    y,
    names: list[str],
    colour_of: dict[str, str],
    bucket: int,
    selected: int | None,
) -> str:
    x, width = PAD + i * slot + slot * 0.12, max(slot * 0.76, 0.6)
    up = down = 0.0
    rects = []
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
    first = i * bucket
    tip = "; ".join(f"{n} {v:+.4g}" for n, v in row.items() if v) or "no reward"
    step_label = f"step {first + 1}" if bucket == 1 else f"steps {first + 1}–{first + bucket}"
    picked = selected is not None and first <= selected < first + bucket
    hit = (
        f'<rect class="oe-hit{" oe-picked" if picked else ""}" x="{PAD + i * slot:.1f}" '
        f'y="{PAD}" width="{slot:.2f}" height="{HEIGHT - LEGEND - 2 * PAD}" '
        f'fill="{"#FDE68A" if picked else "transparent"}" fill-opacity="0.5"/>'
    )
    return (
        f'<g class="oe-bar" data-step="{first}"><title>{html.escape(step_label)}: '
        f"{html.escape(tip)}</title>{hit}{''.join(rects)}</g>"
    )


def _bucketed(rows: list[dict[str, float]], size: int) -> list[dict[str, float]]:
    if size == 1:
        return rows
    out = []
    for start in range(0, len(rows), size):
        chunk = rows[start : start + size]
        merged: dict[str, float] = {}
        for row in chunk:
            for name, value in row.items():
                merged[name] = merged.get(name, 0.0) + value / len(chunk)
        out.append(merged)
    return out


def _bucketed_totals(totals: list[float], size: int) -> list[float]:
    return [
        sum(totals[i : i + size]) / len(totals[i : i + size]) for i in range(0, len(totals), size)
    ]


def _extent(rows: list[dict[str, float]], totals: list[float]) -> tuple[float, float]:
    highs = [sum(v for v in row.values() if v > 0) for row in rows]
    lows = [sum(v for v in row.values() if v < 0) for row in rows]
    low, high = min(0.0, *lows, *totals), max(0.0, *highs, *totals)
    return (low, high) if high > low else (low - 1.0, high + 1.0)


def _legend(names: list[str], colour_of: dict[str, str]) -> str:
    items, x = [], PAD
    entries = [(n, colour_of[n], "rect") for n in names] + [("reward", "#111827", "line")]
    for name, colour, shape in entries:
        mark = (
            f'<rect x="{x}" y="{HEIGHT - 15}" width="9" height="9" fill="{colour}"/>'
            if shape == "rect"
            else f'<line x1="{x}" x2="{x + 10}" y1="{HEIGHT - 10.5}" y2="{HEIGHT - 10.5}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        items.append(
            f'<g class="oe-legend-entry">{mark}<text x="{x + 13}" y="{HEIGHT - 7}" '
            f'font-size="10" fill="#1F2937">{html.escape(name)}</text></g>'
        )
        x += 22 + 6 * len(name)
    return "".join(items)


def compare_chart_svg(runs: Sequence[tuple[str, Sequence[float]]]) -> str:
    """Two (or more) runs' returns over the steps, overlaid on the same axes, with a legend.

    ``runs`` is a sequence of (label, rewards per step); each run gets a cumulative line and
    dots for its per-step rewards, so where two runs of one seed part ways is easy to spot.
    """
    runs = [(label, [float(r) for r in rewards]) for label, rewards in runs]
    if not any(rewards for _, rewards in runs):
        return _empty("reward curves (no steps yet)")
    curves = [(label, rewards, _cumulative(rewards)) for label, rewards in runs]
    values = [v for _, r, c in curves for v in (*r, *c)]
    low, high = min(0.0, *values), max(0.0, *values)
    high = high if high > low else low + 1.0
    longest = max(len(r) for _, r, _ in curves)
    plot = HEIGHT - LEGEND - 2 * PAD

    def xy(i: int, value: float) -> str:
        x = PAD + (i + 1) / longest * (WIDTH - 2 * PAD)
        return f"{x:.1f},{PAD + (high - value) / (high - low) * plot:.1f}"

    zero = PAD + high / (high - low) * plot
    lines = []
    for n, (label, _, returns) in enumerate(curves):
        colour, dash = RUN_COLOURS[n % len(RUN_COLOURS)], ' stroke-dasharray="5 3"' if n else ""
        points = " ".join([f"{PAD},{zero:.1f}", *(xy(i, v) for i, v in enumerate(returns))])
        lines.append(
            f'<polyline class="oe-run" data-run="{n}" data-label="{html.escape(label)}" '
            f'fill="none" stroke="{colour}" stroke-width="1.8"{dash} points="{points}">'
            f"<title>{html.escape(label)}: return {(returns[-1] if returns else 0.0):+.4g}"
            "</title></polyline>"
        )
    legend = _run_legend([label for label, _, _ in curves])
    label = "returns compared: " + " vs ".join(label for label, _, _ in curves)
    return (
        f'<svg class="oe-compare" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{html.escape(label)}"><title>{html.escape(label)}</title>'
        f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{zero:.1f}" y2="{zero:.1f}" stroke="#94A3B8" '
        f'stroke-width="0.6"/>{"".join(lines)}{legend}</svg>'
    )


def first_divergence(a: Sequence[float], b: Sequence[float]) -> int | None:
    """The first step index where two reward sequences differ (or one ends), else None."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if abs(float(x) - float(y)) > 1e-9:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _run_legend(labels: list[str]) -> str:
    items, x = [], PAD
    for n, label in enumerate(labels):
        colour, dash = RUN_COLOURS[n % len(RUN_COLOURS)], ' stroke-dasharray="5 3"' if n else ""
        items.append(
            f'<line x1="{x}" x2="{x + 16}" y1="{HEIGHT - 10.5}" y2="{HEIGHT - 10.5}" '
            f'stroke="{colour}" stroke-width="2"{dash}/><text x="{x + 20}" y="{HEIGHT - 7}" '
            f'font-size="10" fill="#1F2937">{html.escape(label)}</text>'
        )
        x += 30 + 6 * len(label)
    return "".join(items)


def _cumulative(values: Sequence[float]) -> list[float]:
    total, out = 0.0, []
    for value in values:
        total += value
        out.append(total)
    return out


def _empty(label: str) -> str:
    return (
        f'<svg class="oe-stacked" viewBox="0 0 {WIDTH} 60" role="img" '
        f'aria-label="{html.escape(label)}"><text x="50%" y="55%" text-anchor="middle" '
        f'font-size="11" fill="#64748B">no steps yet</text></svg>'
    )
