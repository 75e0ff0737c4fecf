"""The two shipped networks, read once: lane geometry for drawing, link directions for naming.

``nets/`` holds sumo-rl's ``single-intersection`` and ``2x2grid`` (MIT, see
``nets/LICENSE-sumo-rl.txt``): the network and its demand (``probability`` flows, so the
departures depend on SUMO's ``--seed`` and nothing else). A network is parsed with sumolib the
first time a session uses it and shared read-only by every session afterwards.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import sumolib

NETS_DIR = Path(__file__).resolve().parent.parent / "nets"
NetName = Literal["single-intersection", "grid2x2"]
FILES: dict[str, tuple[str, str]] = {
    "single-intersection": ("single-intersection.net.xml", "single-intersection.rou.xml"),
    "grid2x2": ("2x2.net.xml", "2x2.rou.xml"),
}
Point = tuple[float, float]


@dataclass(frozen=True)
class Link:
    """One controlled link of a traffic light: where its signal head stands and what it does."""

    index: int
    lane: str
    lane_index: int  # 0: the rightmost lane of its edge
    head: Point  # the end of the incoming lane, where the stop line is
    heading: Point  # direction of the lane's last segment (dx, dy)
    axis: str  # "N-S" or "E-W": the way traffic on the incoming lane travels
    turn: str  # SUMO's direction: s(traight), l(eft), r(ight), t(urn), ...


@dataclass(frozen=True)
class Network:
    """What the drawing and the phase names need of a network, in SUMO coordinates."""

    name: str
    net_file: Path
    route_file: Path
    bounds: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax
    lanes: tuple[tuple[str, float, tuple[Point, ...]], ...]  # id, width, shape
    junctions: tuple[tuple[Point, ...], ...]
    links: dict[str, tuple[Link, ...]]  # per traffic light, by link index
    center: str  # the junction nearest the middle
    radius: float  # from there, every point of the network is closer than this


@functools.cache
def load(name: str) -> Network:
    """The network ``name`` (one of :data:`FILES`), parsed once per process."""
    net_name, route_name = FILES[name]
    net_file = NETS_DIR / net_name
    net = sumolib.net.readNet(str(net_file))
    xmin, ymin, xmax, ymax = net.getBoundary()
    lanes = tuple(
        (lane.getID(), lane.getWidth(), tuple(lane.getShape()))
        for edge in net.getEdges()
        for lane in edge.getLanes()
    )
    junctions = tuple(tuple(node.getShape()) for node in net.getNodes() if node.getShape())
    links = {tls.getID(): _links(tls) for tls in net.getTrafficLights()}
    middle = ((xmin + xmax) / 2, (ymin + ymax) / 2)
    center = min(net.getNodes(), key=lambda node: math.dist(node.getCoord(), middle))
    radius = math.dist((xmin, ymin), (xmax, ymax)) + 10.0
    return Network(
        name,
        net_file,
        NETS_DIR / route_name,
        (xmin, ymin, xmax, ymax),
        lanes,
        junctions,
        links,
        center.getID(),
        radius,
    )


def _links(tls: sumolib.net.TLS) -> tuple[Link, ...]:
    found = {}
    for in_lane, out_lane, index in tls.getConnections():
        connection = in_lane.getConnection(out_lane)
        turn = connection.getDirection() if connection is not None else "s"
        shape = in_lane.getShape()
        (x0, y0), (x1, y1) = shape[-2], shape[-1]
        found[index] = Link(
            index,
            in_lane.getID(),
            in_lane.getIndex(),
            (x1, y1),
            (x1 - x0, y1 - y0),
            _axis(in_lane),
            turn,
        )
    return tuple(found[i] for i in sorted(found))


def _axis(lane: sumolib.net.lane.Lane) -> str:
    (x0, y0), (x1, y1) = lane.getShape()[0], lane.getShape()[-1]
    return "E-W" if abs(x1 - x0) >= abs(y1 - y0) else "N-S"


def phase_names(links: tuple[Link, ...], states: list[str]) -> list[str]:
    """A label per green phase (``"N-S green"``, ``"E-W left"``), numbered where two coincide."""
    names = [_phase_name(links, state) for state in states]
    return [f"{name} ({i})" if names.count(name) > 1 else name for i, name in enumerate(names)]


def _phase_name(links: tuple[Link, ...], state: str) -> str:
    green = [link for link in links if link.index < len(state) and state[link.index] in "Gg"]
    if not green:
        return "all red"
    axes = sorted({link.axis for link in green}, key=("N-S", "E-W").index)
    kind = "left" if all(link.turn in "lL" for link in green) else "green"
    return f"{' + '.join(axes)} {kind}"
