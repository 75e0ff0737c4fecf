"""Driving our kinematic town (``maze_navigation``, ``free_roam``): how an action sets the car's
controls, turns it at a junction or plans the autopilot's route, how many ticks it runs, and
how far the car is from the goal."""

from __future__ import annotations

import math

from carla_env.models import CarlaAction
from carla_env.server import kinematics as kin

MAX_MAZE_STEPS = 200
GOAL_RADIUS_M = 5.0
COLLISION_PENALTY = -5.0


def drive(d: kin.Driver, action: CarlaAction, ticks_per_step: int) -> tuple[int, str]:
    """Set the car's controls (or its autopilot) for ``action``: the ticks the step runs, and
    what is wrong with the action (``""`` when nothing is)."""
    c = d.controls
    kind = action.action_type
    error = ""
    ticks = ticks_per_step
    if kind == "observe":
        pass
    elif kind in ("emergency_stop", "brake_vehicle"):
        c.brake = 1.0 if kind == "emergency_stop" else float(action.brake_intensity or 0.0)
        c.throttle, c.cruise_ms = 0.0, None
        d.plan = []
    elif kind == "control":
        c.throttle, c.brake, c.cruise_ms = action.throttle, action.brake, None
        d.plan = []
        turn = "left" if action.steer < -0.3 else "right" if action.steer > 0.3 else "straight"
        if d.ahead is None:
            error = d.choose(turn) or ""
            if error and d.exits_at_next() == [] and action.throttle > 0:
                error = d.choose("back") or ""
        else:
            d.turn = turn
    elif kind == "maintain_speed":
        if action.target_speed_kmh is None:
            error = "maintain_speed needs target_speed_kmh"
        else:
            c.cruise_ms, c.brake = action.target_speed_kmh / 3.6, 0.0
            if d.ahead is None:
                error = d.choose(d.turn) or ""
    elif kind == "lane_change":
        error = "the town's roads have one lane each way: steer at a junction to turn"
    elif kind == "init_navigation_agent":
        d.agent_kmh = kin.BEHAVIOUR_KMH[action.navigation_behavior]
        ticks = 0
    elif kind == "set_destination":
        ticks = 0
        if d.agent_kmh is None:
            error = "call init_navigation_agent first"
        elif action.destination_x is None or action.destination_y is None:
            error = "set_destination needs destination_x and destination_y"
        else:
            error = plan(d, action.destination_x, action.destination_y)
    elif kind == "follow_route":
        ticks = action.route_steps
        if not d.plan:
            error = "no route: init_navigation_agent, then set_destination"
            ticks = 0
    elif kind == "capture_image":
        ticks = 0
        error = "our kinematic simulator has no camera: the top-down view is the picture"
    if error:
        ticks = 0 if kind != "control" or d.ahead is None else ticks
    return ticks, error


def advance(d: kin.Driver, ticks: int) -> list[dict]:
    """Run ``ticks`` ticks, stopping on arrival or on a collision: the collisions of the step."""
    hits = len(d.collisions)
    for _ in range(ticks):
        d.tick()
        if goal_distance(d) <= GOAL_RADIUS_M or len(d.collisions) > hits:
            break  # arrived, or struck something: the step ends there
    return d.collisions[hits:]


def plan(d: kin.Driver, x: float, y: float) -> str:
    """Route the autopilot to the road at (x, y); what is wrong, or ``""``."""
    target = (round(x / kin.BLOCK_M), round(y / kin.BLOCK_M))
    if target not in d.town.roads:
        return f"({x:g}, {y:g}) is outside the town"
    blocked = d.town.blocked()  # the agent drives round the traffic when it can
    if d.ahead is None or (d.s < 1.0 and d.v < 0.5):  # standing: any road from here
        path = kin.route(d.town.roads, d.node, target, blocked)
        if len(path) < 2:
            return "already there"
        d.ahead, d.s, d.waiting = path[1], 0.0, ""
    else:  # on the way to ``ahead``: the route goes on from there (turning there if need be)
        path = [d.node, *kin.route(d.town.roads, d.ahead, target, blocked)]
    d.plan, d.plan_i = path, 1
    return ""


def goal_distance(d: kin.Driver) -> float:
    """The straight-line distance from the car to the town's goal, in metres."""
    gx, gy = kin.node_xy(d.town.goal)
    return math.dist(d.xy, (gx, gy))
