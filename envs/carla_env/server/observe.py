"""What the driver sees: the observation of the trolley road and of the town (speed, lane or
heading, nearby actors, a scene description in words), and the name of the simulator it came
from. Each also brings the episode's state (time, distance, collisions) up to date."""

from __future__ import annotations

import math
from typing import Any

from carla_env.models import CarlaObservation, CarlaState
from carla_env.server import kinematics as kin
from carla_env.server.maze import goal_distance
from carla_env.server.scenarios import Scenario

SIMULATOR = "kinematic simulator (ours, not CARLA)"


def town_observation(
    d: kin.Driver,
    sc: Scenario,
    s: CarlaState,
    outcome: dict[str, Any],
    reward: float = 0.0,
    done: bool = False,
    reason: str = "",
    error: str = "",
) -> CarlaObservation:
    """The town (``maze_navigation``, ``free_roam``) as the driver sees it."""
    x, y = d.xy
    s.simulation_time = round(d.t, 3)
    goal = goal_distance(d)
    gx, gy = kin.node_xy(d.town.goal)
    bearing = math.degrees(math.atan2(gy - y, gx - x))
    rel = (bearing - d.yaw + 180) % 360 - 180
    direction = (
        "ahead"
        if abs(rel) < 30
        else "behind"
        if abs(rel) > 150
        else ("to the right" if rel > 0 else "to the left")
    )
    exits = ", ".join(d.exits_at_next()) or "none (dead end)"
    actors = []
    for o in d.town.obstacles:
        ox, oy = kin.obstacle_xy(o)
        far = math.dist((x, y), (ox, oy))
        if far <= 60.0:
            actors.append({"type": o.kind, "id": o.id, "distance": round(far, 1)})
    lines = [
        f"Speed: {d.v * 3.6:.1f} km/h",
        f"Goal: {goal:.1f} m {direction} (road distance {d.route_distance():.0f} m)",
        f"Location: ({x:.1f}, {y:.1f})  Heading: {d.yaw:.0f}°",
        f"Next junction: roads {exits}",
        *(f"  - {a['type']} {a['distance']:.1f}m away" for a in actors),
        f"Time: {d.t:.2f} s (step {s.step_count})",
    ]
    struck = error.startswith("COLLISION")
    return CarlaObservation(
        scene_description="\n".join(lines),
        question=sc.question,
        speed_kmh=round(d.v * 3.6, 2),
        location=(round(x, 2), round(y, 2), 0.0),
        rotation=(0.0, d.yaw, 0.0),
        current_lane="lane_0",
        nearby_actors=actors,
        collision_detected=struck,
        collided_with=d.collisions[-1]["with"] if struck else None,
        scenario_name=sc.name,
        simulation_time=s.simulation_time,
        step_number=s.step_count,
        done_reason=reason,
        goal_distance=round(goal, 2),
        goal_direction=direction,
        rubric_reward=reward,
        outcome=dict(outcome),
        simulator=SIMULATOR,
        error=error,
        reward=reward,
        done=done,
    )


def road_observation(
    road: kin.Road,
    sc: Scenario,
    s: CarlaState,
    outcome: dict[str, Any],
    reward: float = 0.0,
    done: bool = False,
    reason: str = "",
    error: str = "",
) -> CarlaObservation:
    """The trolley road as the driver sees it."""
    s.simulation_time = round(road.t, 3)
    s.total_distance = round(road.distance, 2)
    s.collisions = [dict(c) for c in road.collisions]
    front = road.x + kin.CAR_LEN / 2
    actors = []
    for p in road.people:
        actors.append(
            {
                "type": p.kind,
                "id": p.id,
                "distance": round(p.x - front, 1),
                "lane": f"lane_{round(p.y / kin.LANE_W)}",
                "hit": p.hit,
            }
        )
    for b in road.barriers:
        actors.append(
            {
                "type": "barrier",
                "id": b.id,
                "distance": round(b.x - front, 1),
                "lane": f"lane_{round(b.y / kin.LANE_W)}",
                "hit": road.damaged,
            }
        )
    stop = road.v**2 / (2 * road.mu * kin.G)
    lines = [
        f"Ego speed: {road.v * 3.6:.1f} km/h",
        f"Lane: {road.lane_name()}",
        f"Braking distance now: {stop:.1f} m",
    ]
    groups: dict[tuple[str, str], list[dict]] = {}
    for a in actors:
        groups.setdefault((a["type"], a["lane"]), []).append(a)
    lines.append(f"Nearby actors ({len(actors)}):")
    for (kind, lane), items in groups.items():
        lines.append(
            f"  - {len(items)} {kind}{'s' if len(items) > 1 else ''} "
            f"{min(i['distance'] for i in items):.1f}m ahead in {lane}"
        )
    if road.collisions:
        lines.append("COLLISION with " + ", ".join(c["with"] for c in road.collisions))
    lines.append(f"Simulation time: {road.t:.2f}s")
    hit = road.collisions[-1]["with"] if road.collisions else None
    return CarlaObservation(
        scene_description="\n".join(lines),
        question=sc.question,
        speed_kmh=round(road.v * 3.6, 2),
        location=(round(road.x, 2), round(road.y, 2), 0.0),
        rotation=(0.0, 0.0, 0.0),
        current_lane=road.lane_name(),
        nearby_actors=actors,
        collision_detected=bool(road.collisions),
        collision_intensity=max([c["speed_kmh"] for c in road.collisions], default=0.0),
        collided_with=hit,
        scenario_name=sc.name,
        simulation_time=s.simulation_time,
        step_number=s.step_count,
        done_reason=reason,
        rubric_reward=reward,
        outcome=dict(outcome),
        simulator=SIMULATOR,
        error=error,
        reward=reward,
        done=done,
    )
