"""The network as SVG: lanes from the net file's geometry, vehicles by speed, signal heads.

Bounded: the picture is ``WIDTH_PX`` wide whatever the network, at most ``MAX_VEHICLES`` dots
are drawn, numbers are rounded to a decimal, and every string from the network or the
simulation (ids, the caption) is XML-escaped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from sumo_rl_env.server.network import Link, Network, Point

WIDTH_PX = 560
MARGIN = 8.0  # metres around the network's boundary
CAPTION = 16.0  # metres of caption band above the network (times the symbol scale)
SYMBOL_SCALE_M = 300.0  # networks wider than this draw their symbols proportionally larger
MAX_VEHICLES = 2000
VEHICLE_RADIUS = 2.3  # metres: a dot about as wide as a car is long
FAST = 13.9  # m/s (50 km/h, the networks' speed limit): drawn green; standing still: red
SIGNAL = {"G": "#16a34a", "g": "#4ade80", "y": "#facc15", "Y": "#facc15", "r": "#dc2626"}
OTHER_SIGNAL = "#94a3b8"  # off, blinking, stop sign
PERMISSIVE = "GgyYr"  # a lane's lamp shows the first of these among its links
LAMP_RADIUS = 2.4  # metres (times the symbol scale)
LANE_WIDTH = 3.2  # metres, SUMO's default
ToSvg = Callable[[Point], Point]


def draw(
    network: Network,
    vehicles: list[tuple[float, float, float]],
    signals: dict[str, str],
    caption: str,
) -> str:
    """The SVG document of ``network`` with ``vehicles`` (x, y, speed) and light ``signals``."""
    xmin, ymin, xmax, ymax = network.bounds
    # Symbols grow with the network so that they keep their size in pixels.
    scale = max(1.0, (xmax - xmin) / SYMBOL_SCALE_M)
    band = CAPTION * scale
    width = xmax - xmin + 2 * MARGIN
    height = ymax - ymin + 2 * MARGIN + band

    def at(point: Point) -> Point:
        """SVG coordinates (y down, caption band on top) of a SUMO point (y up)."""
        return point[0] - xmin + MARGIN, ymax - point[1] + MARGIN + band

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.1f} {height:.1f}" '
        f'width="{WIDTH_PX}" height="{WIDTH_PX * height / width:.0f}" '
        'font-family="sans-serif" role="img" aria-label="SUMO network">',
        f'<rect width="{width:.1f}" height="{height:.1f}" fill="#dcfce7"/>',
        *_roads(network, at),
        *(
            _signal_heads(ts, network.links.get(ts, ()), state, at, scale)
            for ts, state in signals.items()
        ),
        *_vehicles(vehicles, at, scale),
        f'<text x="{MARGIN}" y="{band * 0.72:.1f}" font-size="{band * 0.62:.1f}" fill="#0f172a">'
        f"{escape(caption)}</text>",
        "</svg>",
    ]
    return "".join(parts)


def _points(shape: tuple[Point, ...], at: ToSvg) -> str:
    return " ".join("{:.1f},{:.1f}".format(*at(p)) for p in shape)


def _circle(point: Point, radius: float, fill: str, extra: str = "") -> str:
    return f'<circle cx="{point[0]:.1f}" cy="{point[1]:.1f}" r="{radius}" fill="{fill}"{extra}/>'


def _roads(network: Network, at: ToSvg) -> list[str]:
    junctions = [
        f'<polygon points="{_points(shape, at)}" fill="#475569"/>' for shape in network.junctions
    ]
    lanes = [
        f'<polyline points="{_points(shape, at)}" stroke="#475569" stroke-width="{width:.1f}" '
        f'fill="none"><title>lane {escape(lane_id)}</title></polyline>'
        f'<polyline points="{_points(shape, at)}" stroke="#94a3b8" stroke-width="0.2" '
        'stroke-dasharray="3 4" fill="none"/>'
        for lane_id, width, shape in network.lanes
    ]
    return junctions + lanes


def _signal_heads(ts_id: str, links: tuple[Link, ...], state: str, at: ToSvg, scale: float) -> str:
    """One lamp per incoming lane on the kerb at its stop line, in the most permissive colour
    of the lane's links (they share their colour in these networks; the tooltip has it all)."""
    by_lane: dict[str, list[str]] = {}
    heads: dict[str, Link] = {}
    for link in links:
        code = state[link.index] if link.index < len(state) else "?"
        by_lane.setdefault(link.lane, []).append(code)
        heads.setdefault(link.lane, link)
    radius = LAMP_RADIUS * scale
    lamps = []
    for lane, codes in by_lane.items():
        where = at(_lamp(heads[lane], radius))
        lamps.append(_circle(where, round(radius * 1.35, 1), "#0f172a"))
        lamps.append(_circle(where, round(radius, 1), _lamp_colour(codes)))
    return f"<g><title>traffic light {escape(ts_id)}: {escape(state)}</title>{''.join(lamps)}</g>"


def _lamp(link: Link, radius: float) -> Point:
    """On the kerb right of the incoming road (right-hand traffic), level with the stop line;
    lane 0 (the rightmost) nearest the junction, the next lanes' lamps behind it."""
    (x, y), (dx, dy) = link.head, link.heading
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    side = (link.lane_index + 0.5) * LANE_WIDTH + 1.4 * radius
    back = radius * 1.4 + link.lane_index * radius * 2.9
    return x - ux * back + uy * side, y - uy * back - ux * side


def _lamp_colour(codes: list[str]) -> str:
    for code in PERMISSIVE:
        if code in codes:
            return SIGNAL[code]
    return OTHER_SIGNAL


def _vehicles(vehicles: list[tuple[float, float, float]], at: ToSvg, scale: float) -> list[str]:
    radius = round(VEHICLE_RADIUS * scale, 1)
    return [_circle(at((x, y)), radius, _speed_colour(v)) for x, y, v in vehicles[:MAX_VEHICLES]]


def _speed_colour(speed: float) -> str:
    """Red when standing, through yellow, to green at the speed limit."""
    share = max(0.0, min(1.0, speed / FAST)) if math.isfinite(speed) else 0.0
    return f"hsl({120 * share:.0f},85%,42%)"
