"""The stage's top-down pictures (SVG) of our kinematic simulator: the road with its lanes,
people, barriers, the car and where full braking would stop it; the town's roads with the car,
the goal and the planned route. The question is written above, the outcome and its ethical
metrics below once the episode is over. Every text is escaped and clipped."""

from __future__ import annotations

import html
import textwrap
from typing import Any

from carla_env.server import kinematics as kin
from carla_env.server.observe import SIMULATOR
from carla_env.server.scenarios import Scenario

W = 640
INK, MUTED, ROAD, LINE = "#1d2433", "#5b6577", "#3b414d", "#e8e8e8"
BANNER = SIMULATOR


def _t(
    x: float,
    y: float,
    text: Any,
    size: int = 14,
    fill: str = INK,
    weight: str = "normal",
    anchor: str = "start",
) -> str:
    body = html.escape(str(text)[:120])
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" fill="{fill}" '
        f'font-weight="{weight}" text-anchor="{anchor}">{body}</text>'
    )


def _header(sc: Scenario, message: str) -> tuple[list[str], float]:
    parts = [
        _t(16, 26, sc.title or sc.name, 18, weight="bold"),
        _t(W - 16, 26, BANNER, 11, MUTED, anchor="end"),
    ]
    y = 48.0
    for line in textwrap.wrap(sc.question, 78)[:3]:
        parts.append(_t(16, y, line, 14))
        y += 18
    if message and message != sc.question:
        for line in textwrap.wrap(message, 84)[:2]:
            parts.append(_t(16, y, line, 13, "#2f6fdb"))
            y += 17
    return parts, y + 6


def _outcome(outcome: dict[str, Any], y: float) -> tuple[list[str], float]:
    if not outcome:
        return [], y
    reward = outcome.get("reward", outcome.get("total_reward"))
    good = isinstance(reward, int | float) and reward > 0
    parts = [
        f'<rect x="12" y="{y:.0f}" width="{W - 24}" height="24" rx="4" '
        f'fill="{"#dcfce7" if good else "#fee2e2"}"/>',
        _t(
            20,
            y + 17,
            f"Outcome: {outcome.get('done_reason', '')} · reward {reward}",
            14,
            weight="bold",
        ),
    ]
    y += 42
    keys = [k for k in outcome if k not in ("done_reason", "reward", "simulator", "scenario")]
    for i, key in enumerate(keys[:16]):
        col, row = divmod(i, 8)
        parts.append(_t(20 + col * 310, y + row * 18, f"{key}: {outcome[key]}", 12, MUTED))
    return parts, y + 8 * 18


def road_svg(
    road: kin.Road, sc: Scenario, message: str, outcome: dict[str, Any], expected: dict[str, int]
) -> str:
    parts, top = _header(sc, message)
    lanes = sorted(road.lanes)
    span_x = (-6.0, sc.distance_m + 14.0)
    scale = (W - 40) / (span_x[1] - span_x[0])
    lane_px = kin.LANE_W * scale * 1.6  # lanes drawn wider than true scale
    road_top = top + 10
    y_of = {lane: road_top + (i + 0.5) * lane_px for i, lane in enumerate(lanes)}

    def px(x: float) -> float:
        return 20 + (x - span_x[0]) * scale

    def py(y: float) -> float:
        first = lanes[0]
        return y_of[first] + (y / kin.LANE_W - first) * lane_px

    height_road = lane_px * len(lanes)
    parts.append(
        f'<rect x="10" y="{road_top:.0f}" width="{W - 20}" height="{height_road:.0f}" '
        f'fill="{ROAD}"/>'
    )
    for i in range(1, len(lanes)):
        yy = road_top + i * lane_px
        parts.append(
            f'<line x1="10" x2="{W - 10}" y1="{yy:.0f}" y2="{yy:.0f}" stroke="{LINE}" '
            'stroke-width="2" stroke-dasharray="14 10"/>'
        )
    for lane in lanes:
        parts.append(_t(14, y_of[lane] + 4, f"lane_{lane}", 10, "#cbd5e1"))
    stop = road.x + kin.CAR_LEN / 2 + road.v**2 / (2 * road.mu * kin.G)
    if road.v > 0 and stop < span_x[1]:
        parts.append(
            f'<line x1="{px(stop):.0f}" x2="{px(stop):.0f}" y1="{road_top:.0f}" '
            f'y2="{road_top + height_road:.0f}" stroke="#facc15" stroke-width="2" '
            'stroke-dasharray="5 4"/>'
        )
    for b in road.barriers:
        parts.append(
            f'<rect x="{px(b.x) - 4:.0f}" y="{py(b.y) - lane_px * 0.4:.0f}" width="9" '
            f'height="{lane_px * 0.8:.0f}" fill="#9ca3af" stroke="#111" />'
        )
    cx, cy = px(road.x), py(road.y)
    w, h = kin.CAR_LEN * scale, kin.CAR_HALF_W * 2 * lane_px / kin.LANE_W
    parts.append(
        f'<rect x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w:.1f}" '
        f'height="{h:.1f}" rx="3" fill="#2563eb" stroke="#fff"/>'
    )
    for p in road.people:
        fill = "#7f1d1d" if p.hit else "#ef4444"
        parts.append(
            f'<circle cx="{px(p.x):.1f}" cy="{py(p.y):.1f}" r="{max(4, 0.4 * scale):.1f}" '
            f'fill="{fill}" stroke="#fff" stroke-width="1.5"><title>{p.kind}</title>'
            "</circle>"
        )
    y = road_top + height_road + 22
    status = (
        f"Speed {road.v * 3.6:.1f} km/h · {road.lane_name()} · t = {road.t:.2f} s · "
        f"full braking stops in {road.v**2 / (2 * road.mu * kin.G):.1f} m"
    )
    parts.append(_t(16, y, status, 13))
    y += 20
    if expected:
        said = ", ".join(f"{k} → {v} hit" for k, v in expected.items())
        parts.append(
            _t(16, y, f"Our simulator's outcome of each choice made now: {said}", 12, MUTED)
        )
        y += 18
    more, y = _outcome(outcome, y + 8)
    parts += more
    return _svg(parts, y + 10)


def maze_svg(d: kin.Driver, sc: Scenario, message: str, outcome: dict[str, Any], state: Any) -> str:
    parts, top = _header(sc, message)
    cell = (W - 80) / (kin.GRID - 1) * 0.62
    ox, oy = (W - cell * (kin.GRID - 1)) / 2, top + 20

    def pt(x: float, y: float) -> tuple[float, float]:
        return ox + x / kin.BLOCK_M * cell, oy + y / kin.BLOCK_M * cell

    size = cell * (kin.GRID - 1)
    parts.append(
        f'<rect x="{ox - 14:.0f}" y="{oy - 14:.0f}" width="{size + 28:.0f}" '
        f'height="{size + 28:.0f}" fill="#d9f99d" rx="6"/>'
    )
    for a, ends in sorted(d.town.roads.items()):
        for b in sorted(ends):
            if a < b:
                (x1, y1), (x2, y2) = pt(*kin.node_xy(a)), pt(*kin.node_xy(b))
                parts.append(
                    f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
                    f'stroke="{ROAD}" stroke-width="{cell * 0.28:.0f}" '
                    'stroke-linecap="round"/>'
                )
    if len(d.plan) > 1:
        pts = " ".join("{:.0f},{:.0f}".format(*pt(*kin.node_xy(n))) for n in d.plan)
        parts.append(
            f'<polyline points="{pts}" fill="none" stroke="#60a5fa" stroke-width="3" '
            'stroke-dasharray="6 5"/>'
        )
    for o in d.town.obstacles:
        ox, oy = pt(*kin.obstacle_xy(o))
        fill = "#f97316" if o.kind == "vehicle" else "#ef4444"
        parts.append(
            f'<circle cx="{ox:.1f}" cy="{oy:.1f}" r="5" fill="{fill}" stroke="#fff">'
            f"<title>{html.escape(o.kind)}</title></circle>"
        )
    gx, gy = pt(*kin.node_xy(d.town.goal))
    parts.append(f'<circle cx="{gx:.0f}" cy="{gy:.0f}" r="{cell * 0.16:.0f}" fill="#16a34a"/>')
    parts.append(_t(gx, gy + 5, "🏁", 16, anchor="middle"))
    cx, cy = pt(*d.xy)
    parts.append(
        f'<g transform="translate({cx:.1f} {cy:.1f}) rotate({d.yaw:.0f})">'
        '<polygon points="11,0 -8,-7 -8,7" fill="#2563eb" stroke="#fff" '
        'stroke-width="1.5"/></g>'
    )
    y = oy + size + 40
    parts.append(
        _t(
            16,
            y,
            f"Speed {d.v * 3.6:.1f} km/h · goal {d.route_distance():.0f} m by "
            f"road · step {state.step_count}/200 · reward so far "
            f"{state.total_reward:.2f}",
            13,
        )
    )
    more, y = _outcome(outcome, y + 14)
    parts += more
    return _svg(parts, y + 10)


def message_svg(sc: Scenario, message: str) -> str:
    parts, y = _header(sc, message)
    return _svg(parts, y + 20)


def _svg(parts: list[str], height: float) -> str:
    height = max(200, int(height))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" width="{W}" '
        f'height="{height}" font-family="system-ui, sans-serif">'
        f'<rect width="{W}" height="{height}" fill="#ffffff"/>' + "".join(parts) + "</svg>"
    )
