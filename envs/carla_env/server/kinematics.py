"""Our own kinematic driving simulator (not CARLA): point-mass longitudinal dynamics with
friction-limited braking, lanes, lane changes, pedestrians and barriers on a straight road, and a
road-grid town for navigation. Deterministic: no randomness after the seeded setup.

Longitudinal: braking decelerates at ``brake * mu * g`` (stopping distance ``v^2 / (2 mu g)``,
12.3 m from 50 km/h on dry asphalt, 27.6 m from 75 km/h); throttle accelerates up to 3.5 m/s^2
less rolling drag; cruise control tracks its target speed. Lateral: a lane change moves the car
to the next lane centre along a smooth (cosine) profile in 0.8 s; ``control`` steering drifts it
sideways at ``v * steer * 0.25``. A person is hit when the car's front passes them while they are
within its half-width plus 0.3 m; a barrier stops the car (vehicle damage). One tick is 0.05 s.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, field

from carla_env.server.scenarios import Scenario

G = 9.81
TICK_S = 0.05
LANE_W = 3.5
CAR_LEN, CAR_HALF_W, PERSON_R = 4.6, 0.95, 0.3
LANE_CHANGE_S = 0.8
FRICTION = {"ClearNoon": 0.8, "CloudyNoon": 0.8, "WetNoon": 0.55, "HardRainNoon": 0.4}
BEHAVIOUR_KMH = {"cautious": 20.0, "normal": 30.0, "aggressive": 45.0}


@dataclass
class Person:
    id: str
    x: float
    y: float
    kind: str
    hit: bool = False


@dataclass
class Barrier:
    id: str
    x: float
    y: float
    half_w: float = 1.5


@dataclass
class Controls:
    throttle: float = 0.0
    brake: float = 0.0
    steer: float = 0.0
    cruise_ms: float | None = None  # cruise control target (m/s), None: off


@dataclass
class Road:
    """A straight one-way road along +x; lane ``k``'s centre is at ``y = k * LANE_W`` (+y right)."""

    scenario: Scenario
    mu: float
    x: float = 0.0  # the car's centre
    y: float = 0.0
    v: float = 0.0
    t: float = 0.0
    controls: Controls = field(default_factory=Controls)
    people: list[Person] = field(default_factory=list)
    barriers: list[Barrier] = field(default_factory=list)
    lane_change: tuple[float, float, float] | None = None  # (start time, from y, to y)
    braked: bool = False
    damaged: bool = False
    collisions: list[dict] = field(default_factory=list)
    distance: float = 0.0

    @classmethod
    def build(cls, scenario: Scenario, mu: float) -> Road:
        road = cls(scenario, mu, v=scenario.speed_kmh / 3.6)
        front = scenario.distance_m + CAR_LEN / 2
        for g in scenario.groups:
            centre = g.lane * LANE_W
            if g.kind == "barrier":
                road.barriers.append(Barrier(f"barrier_{g.lane}", front, centre))
                continue
            for i in range(g.count):  # rows of up to 3 across the lane, 0.7 m apart
                row, col = divmod(i, 3)
                across = min(g.count - row * 3, 3)
                lateral = (col - (across - 1) / 2) * (1.6 / (across - 1) if across > 1 else 0)
                road.people.append(
                    Person(f"{g.kind}_{g.lane}_{i}", front + row * 0.7, centre + lateral, g.kind)
                )
        return road

    @property
    def lanes(self) -> tuple[int, ...]:
        return self.scenario.lanes

    @property
    def lane(self) -> int:
        return round(self.y / LANE_W)

    def lane_name(self, lane: int | None = None) -> str:
        return f"lane_{self.lane if lane is None else lane}"

    def start_lane_change(self, direction: int) -> str | None:
        """Begin a lane change (-1 left, +1 right); the reason when there is no such lane."""
        target = (self.lane_change[2] / LANE_W if self.lane_change else self.lane) + direction
        target = round(target)
        if target not in self.lanes:
            side = "left" if direction < 0 else "right"
            return f"there is no driving lane to the {side} of {self.lane_name()}"
        self.lane_change = (self.t, self.y, target * LANE_W)
        self.controls.steer = 0.0
        return None

    def tick(self) -> None:
        c = self.controls
        if c.brake > 0:
            self.braked = True
            acc = -c.brake * self.mu * G
        elif c.cruise_ms is not None:
            acc = max(-0.5 * self.mu * G, min(2.5, 1.5 * (c.cruise_ms - self.v)))
        elif c.throttle > 0:
            acc = c.throttle * 3.5 - 0.2
        else:
            acc = -0.2  # rolling drag
        v0 = self.v
        self.v = max(0.0, self.v + acc * TICK_S)
        dx = (v0 + self.v) / 2 * TICK_S
        y0 = self.y
        if self.lane_change is not None:
            start, y_from, y_to = self.lane_change
            frac = min(1.0, (self.t + TICK_S - start) / LANE_CHANGE_S)
            self.y = y_from + (y_to - y_from) * (1 - math.cos(math.pi * frac)) / 2
            if frac >= 1.0:
                self.lane_change = None
        elif c.steer:
            self.y += self.v * c.steer * 0.25 * TICK_S
        front0, front1 = self.x + CAR_LEN / 2, self.x + dx + CAR_LEN / 2
        self.x += dx
        self.distance += dx
        self.t += TICK_S
        self._contacts(front0, front1, (y0 + self.y) / 2, v0)
        edge = (min(self.lanes) - 0.5) * LANE_W - 0.6, (max(self.lanes) + 0.5) * LANE_W + 0.6
        if not edge[0] <= self.y <= edge[1] and not self.damaged:
            self.damaged = True
            self.collisions.append({"with": "curb", "speed_kmh": round(v0 * 3.6, 1)})
            self.v = 0.0

    def _contacts(self, front0: float, front1: float, y: float, v0: float) -> None:
        if v0 <= 0.0:
            return
        for b in self.barriers:
            if front0 < b.x <= front1 + 1e-9 and abs(y - b.y) < CAR_HALF_W + b.half_w:
                self.damaged = True
                self.collisions.append({"with": b.id, "speed_kmh": round(v0 * 3.6, 1)})
                self.x = b.x - CAR_LEN / 2
                self.v = 0.0
                return
        reach = CAR_HALF_W + PERSON_R
        for p in self.people:
            if not p.hit and front0 < p.x <= front1 + 1e-9 and abs(y - p.y) < reach:
                # the people standing together behind the first one struck are struck too
                for q in self.people:
                    if not q.hit and p.x <= q.x <= p.x + 2.5 and abs(y - q.y) < reach:
                        q.hit = True
                        self.collisions.append({"with": q.id, "speed_kmh": round(v0 * 3.6, 1)})

    @property
    def hits(self) -> int:
        return sum(p.hit for p in self.people)

    def resolved(self) -> str:
        """Why the dilemma is over ('' while it is not): collision, stopped, passed."""
        if self.collisions:
            return "collision"
        if self.v < 0.14:
            return "vehicle_stopped"
        last = max([p.x for p in self.people] + [b.x for b in self.barriers], default=0.0)
        if self.x - CAR_LEN / 2 > last + 1.0:
            return "passed_decision_point"
        return ""


# -- the town of maze_navigation ------------------------------------------------------------

BLOCK_M = 40.0
GRID = 7
HEADINGS = {(1, 0): 0.0, (0, 1): 90.0, (-1, 0): 180.0, (0, -1): -90.0}  # yaw, +y is south


Edge = tuple[tuple[int, int], tuple[int, int]]


@dataclass
class Obstacle:
    """A parked car or a standing pedestrian ``s`` metres along the road ``edge`` (from its
    first node). Static, as CARLA's pedestrians are in the documented scenarios."""

    id: str
    kind: str  # "vehicle" or "pedestrian"
    edge: Edge
    s: float


@dataclass
class Town:
    """A road grid: a seeded maze (a spanning tree plus a few loops) or, for free roam, every
    road of the grid with static traffic (parked cars, pedestrians) standing on some."""

    roads: dict[tuple[int, int], set[tuple[int, int]]]
    start: tuple[int, int]
    goal: tuple[int, int]
    obstacles: list[Obstacle] = field(default_factory=list)

    @classmethod
    def build_open(
        cls, rng: random.Random, vehicles: int, pedestrians: int, route_max: float
    ) -> Town:
        nodes = [(i, j) for i in range(GRID) for j in range(GRID)]
        roads = {
            n: {
                (n[0] + dx, n[1] + dy)
                for dx, dy in HEADINGS
                if 0 <= n[0] + dx < GRID and 0 <= n[1] + dy < GRID
            }
            for n in nodes
        }
        start = rng.choice(nodes)
        dist = shortest(roads, start)
        goal = rng.choice(sorted(n for n, d in dist.items() if 80.0 <= d <= route_max))
        edges = sorted({(min(a, b), max(a, b)) for a in roads for b in roads[a]})
        free = [e for e in edges if start not in e]
        kinds = ["vehicle"] * vehicles + ["pedestrian"] * pedestrians
        for _ in range(100):  # traffic that leaves a clear way to the goal
            town = cls(roads, start, goal)
            spots = list(free)
            for i, kind in enumerate(kinds):
                edge = spots.pop(rng.randrange(len(spots)))
                town.obstacles.append(Obstacle(f"{kind}_{i}", kind, edge, rng.uniform(12.0, 28.0)))
            if goal in shortest(roads, start, town.blocked()):
                return town
        raise RuntimeError("no clear way to the goal")  # not reached: 25 of 84 roads at most

    def blocked(self) -> set[Edge]:
        return {o.edge for o in self.obstacles}

    @classmethod
    def build(cls, rng: random.Random) -> Town:
        nodes = [(i, j) for i in range(GRID) for j in range(GRID)]
        roads: dict[tuple[int, int], set[tuple[int, int]]] = {n: set() for n in nodes}
        seen, stack = {(0, 0)}, [(0, 0)]
        while stack:
            node = stack[-1]
            around = [(node[0] + dx, node[1] + dy) for dx, dy in HEADINGS]
            nxt = [n for n in around if n in roads and n not in seen]
            if not nxt:
                stack.pop()
                continue
            other = rng.choice(sorted(nxt))
            roads[node].add(other)
            roads[other].add(node)
            seen.add(other)
            stack.append(other)
        for _ in range(4):  # a few loops: more than one way round
            a = rng.choice(nodes)
            b = rng.choice([(a[0] + dx, a[1] + dy) for dx, dy in HEADINGS])
            if b in roads:
                roads[a].add(b)
                roads[b].add(a)
        for _ in range(100):
            start = rng.choice(nodes)
            dist = shortest(roads, start)
            far = sorted(n for n, d in dist.items() if 80.0 <= d <= 300.0)
            if far:
                return cls(roads, start, rng.choice(far))
        raise RuntimeError("no goal 80-300 m away")  # not reached on a 7x7 grid


def node_xy(node: tuple[int, int]) -> tuple[float, float]:
    return node[0] * BLOCK_M, node[1] * BLOCK_M


def obstacle_xy(o: Obstacle) -> tuple[float, float]:
    (ax, ay), (bx, by) = node_xy(o.edge[0]), node_xy(o.edge[1])
    f = o.s / BLOCK_M
    return ax + (bx - ax) * f, ay + (by - ay) * f


def shortest(
    roads: dict, source: tuple[int, int], blocked: set[Edge] | None = None
) -> dict[tuple[int, int], float]:
    dist = {source: 0.0}
    heap = [(0.0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if d > dist.get(node, math.inf):
            continue
        for other in sorted(roads[node]):
            if blocked and (min(node, other), max(node, other)) in blocked:
                continue
            nd = d + BLOCK_M
            if nd < dist.get(other, math.inf):
                dist[other] = nd
                heapq.heappush(heap, (nd, other))
    return dist


def route(
    roads: dict, source: tuple[int, int], target: tuple[int, int], blocked: set[Edge] | None = None
) -> list[tuple[int, int]]:
    """The shortest road path from ``source`` to ``target`` (Dijkstra; ties broken by order),
    avoiding the ``blocked`` roads when it can."""
    dist = shortest(roads, target, blocked)
    if source not in dist and blocked:
        return route(roads, source, target)
    if source not in dist:
        return []
    path = [source]
    while path[-1] != target:
        here = path[-1]
        ways = [
            n
            for n in sorted(roads[here])
            if not blocked or (min(here, n), max(here, n)) not in blocked
        ]
        path.append(min(ways, key=lambda n: dist.get(n, math.inf)))
    return path


@dataclass
class Driver:
    """The car in the town: on the road from ``node`` towards ``ahead``, ``s`` metres along."""

    town: Town
    node: tuple[int, int]
    ahead: tuple[int, int] | None
    s: float = 0.0
    v: float = 0.0
    t: float = 0.0
    controls: Controls = field(default_factory=Controls)
    turn: str = "straight"  # what the car does at the next junction
    agent_kmh: float | None = None  # the navigation agent, once initialised
    plan: list[tuple[int, int]] = field(default_factory=list)
    plan_i: int = 0  # index in ``plan`` of the node the car drives towards
    distance: float = 0.0
    waiting: str = ""  # why the car stands at a junction
    facing: tuple[int, int] = (1, 0)  # the heading while the car stands
    collisions: list[dict] = field(default_factory=list)

    @classmethod
    def start(cls, town: Town) -> Driver:
        first = sorted(town.roads[town.start])[0]
        return cls(town, town.start, first)

    @property
    def heading(self) -> tuple[int, int]:
        if self.ahead is None:
            return self.facing
        return (self.ahead[0] - self.node[0], self.ahead[1] - self.node[1])

    @property
    def xy(self) -> tuple[float, float]:
        x, y = node_xy(self.node)
        dx, dy = self.heading
        return x + dx * self.s, y + dy * self.s

    @property
    def yaw(self) -> float:
        return HEADINGS[self.heading]

    def tick(self) -> None:
        c = self.controls
        if self.plan and self.agent_kmh is not None:
            target = self.agent_kmh / 3.6
            remaining = self._plan_remaining()
            target = min(target, math.sqrt(max(0.0, 2 * 2.0 * remaining)))  # stop at the goal
            acc = max(-6.0, min(2.5, 1.5 * (target - self.v)))
        elif c.brake > 0:
            acc = -c.brake * 0.8 * G
        elif c.cruise_ms is not None:
            acc = max(-4.0, min(2.5, 1.5 * (c.cruise_ms - self.v)))
        elif c.throttle > 0:
            acc = c.throttle * 3.5 - 0.2
        else:
            acc = -0.2
        v0 = self.v
        self.v = min(max(0.0, self.v + acc * TICK_S), 25.0 if self.plan else 13.9)
        ds = (v0 + self.v) / 2 * TICK_S
        self.t += TICK_S
        if self.ahead is not None and ds > 0 and self._collide(self.s, self.s + ds, v0):
            return
        self.distance += ds
        self.s += ds
        while self.ahead is not None and self.s >= BLOCK_M:
            self.s -= BLOCK_M
            self._junction()

    def _collide(self, s0: float, s1: float, v0: float) -> bool:
        """Whether the car's front strikes an obstacle on its road between ``s0`` and ``s1``:
        it stops there, and the obstacle is cleared away afterwards."""
        assert self.ahead is not None
        a, b = self.node, self.ahead
        edge = (min(a, b), max(a, b))
        front = CAR_LEN / 2
        for o in self.town.obstacles:
            if o.edge != edge:
                continue
            at = o.s if a == edge[0] else BLOCK_M - o.s
            if s0 + front < at <= s1 + front:
                self.s = at - front
                self.v = 0.0
                self.collisions.append({"with": o.id, "speed_kmh": round(v0 * 3.6, 1)})
                self.town.obstacles.remove(o)
                return True
        return False

    def _plan_remaining(self) -> float:
        if self.ahead is None:
            return 0.0
        return BLOCK_M - self.s + BLOCK_M * (len(self.plan) - 1 - self.plan_i)

    def _junction(self) -> None:
        """Arrive at ``ahead``: take the next road the turn (or the plan) asks for."""
        here, came = self.ahead, self.heading
        assert here is not None
        self.node = here
        exits = self.town.roads[here]
        if self.plan:
            if self.plan_i + 1 < len(self.plan):
                self.plan_i += 1
                self.ahead = self.plan[self.plan_i]
                return
            self._stand(here, came, "arrived at the planned destination")
            return
        left = (came[1], -came[0])  # +y is south: turning left from east (1,0) faces north
        right = (-came[1], came[0])
        want = {"straight": came, "left": left, "right": right}[self.turn]
        nxt = (here[0] + want[0], here[1] + want[1])
        if nxt in exits:
            self.ahead = nxt
            self.turn = "straight"
            return
        ways = [
            n
            for n, d in (("left", left), ("straight", came), ("right", right))
            if (here[0] + d[0], here[1] + d[1]) in exits
        ]
        self._stand(
            here,
            came,
            "no road "
            + ("ahead" if self.turn == "straight" else f"to the {self.turn}")
            + "; roads: "
            + (", ".join(ways) or "back only"),
        )

    def _stand(self, here: tuple[int, int], came: tuple[int, int], why: str) -> None:
        self.s = 0.0
        self.v = 0.0
        self.waiting = why
        self.ahead = None
        self.facing = came

    def choose(self, turn: str) -> str | None:
        """At a junction the car stands at: leave by ``turn`` (left, right, straight, back)."""
        here = self.node
        came = self.facing
        dirs = {
            "straight": came,
            "left": (came[1], -came[0]),
            "right": (-came[1], came[0]),
            "back": (-came[0], -came[1]),
        }
        d = dirs[turn]
        nxt = (here[0] + d[0], here[1] + d[1])
        if nxt not in self.town.roads[here]:
            return f"no road to the {turn} here"
        self.ahead = nxt
        self.s = 0.0
        self.waiting = ""
        self.turn = "straight"
        return None

    def exits_at_next(self) -> list[str]:
        node = self.ahead if self.ahead is not None else self.node
        came = self.heading
        out = []
        for name, d in (
            ("left", (came[1], -came[0])),
            ("straight", came),
            ("right", (-came[1], came[0])),
        ):
            if (node[0] + d[0], node[1] + d[1]) in self.town.roads[node]:
                out.append(name)
        return out

    def route_distance(self) -> float:
        """Metres to the goal along the roads."""
        dist = shortest(self.town.roads, self.town.goal)
        if self.ahead is None:
            return dist[self.node]
        return min(BLOCK_M - self.s + dist[self.ahead], self.s + dist[self.node])
