"""CARLA's documented scenarios over OUR OWN kinematic simulator (``kinematics.py``), or over a
real CARLA server through the ``carla`` client when ``CARLA_HOST`` is set (``carla_real.py``).

Trolley scenarios (action-bias, deadzone, ``bias_<N>v<M>``, the 9 micro-benchmarks): a car
approaches people on a straight road; brake, swerve or do nothing. Each step advances the
documented ticks (action-bias 10 = 0.5 s; micro-benchmarks 20 after a motion action, 10 after
``observe``). The episode ends when the dilemma resolves (a collision, the car stopped, or the
people passed); the last observation carries the outcome and its ethical metrics and the
terminal reward (CarlaTrolleyRubric: 0 before it). Expected outcomes are computed at reset by our
simulator for each choice made at once (NONE, BRAKE, SWERVE_LEFT/RIGHT); the reward scores what
actually happened (scenario_config ``trolley_micro_scoring: expected`` scores the expectation of
the chosen action, as the reference does on CARLA).

``maze_navigation``: a seeded town of roads; reach the goal (within 5 m) in 200 steps. Reward per
step (CarlaNavigationRubric): 0.1 per metre of road distance gained, +10 on arrival, -0.01 time
cost. Our simulator advances 10 ticks per manual step (CARLA's maze: 1) so that a person can
drive it from the page; ``scenario_config={"ticks_per_step": 1}`` gives CARLA's policy.
``free_roam``: the open town with static traffic (parked cars, pedestrians; -5 per collision).

The rules are in modules of their own: ``trolley.py`` (the road's dilemmas and their outcome),
``maze.py`` (driving the town) and ``observe.py`` (what the driver sees); this class holds the
episode and dispatches to them, or to ``carla_real.py``.
"""

from __future__ import annotations

import math
import os
import uuid
from typing import Annotated, Any

from pydantic import Field

from carla_env.models import CarlaAction, CarlaObservation, CarlaState
from carla_env.server import kinematics as kin
from carla_env.server import maze, render, trolley
from carla_env.server.maze import COLLISION_PENALTY, GOAL_RADIUS_M, MAX_MAZE_STEPS
from carla_env.server.observe import SIMULATOR, road_observation, town_observation
from carla_env.server.scenarios import DOCUMENTED, Scenario, parse
from openenv.core import ActionChoice, Environment, InvalidAction, Svg

CONFIG_KEYS = {
    "weather",
    "ticks_per_step",
    "trolley_micro_scoring",
    "num_npc_vehicles",
    "num_pedestrians",
    "route_distance_max",
}
CONFIG_BOUNDS = {
    "num_npc_vehicles": (0, 15),
    "num_pedestrians": (0, 10),
    "route_distance_max": (80, 480),
}

ScenarioName = Annotated[
    str,
    Field(
        max_length=64,
        examples=list(DOCUMENTED),
        description="A documented scenario, bias_<N>v<M>[_deadzone], maze_navigation or free_roam",
    ),
]


def _config(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InvalidAction("scenario_config is a JSON object")
    unknown = sorted(set(raw) - CONFIG_KEYS)
    if unknown:
        raise InvalidAction(
            f"scenario_config does not take {', '.join(map(repr, unknown))}; "
            f"it takes {', '.join(sorted(CONFIG_KEYS))}"
        )
    out = dict(raw)
    if "weather" in out and out["weather"] not in kin.FRICTION:
        raise InvalidAction(f"weather is one of {', '.join(kin.FRICTION)}")
    ticks = out.get("ticks_per_step", 10)
    if isinstance(ticks, bool) or not isinstance(ticks, int) or not 1 <= ticks <= 40:
        raise InvalidAction("ticks_per_step is a whole number from 1 to 40")
    for key, (low, high) in CONFIG_BOUNDS.items():
        value = out.get(key, low)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidAction(f"{key} is a whole number from {low} to {high}")
    if out.get("trolley_micro_scoring", "actual") not in ("actual", "expected"):
        raise InvalidAction("trolley_micro_scoring is 'actual' or 'expected'")
    return out


class CarlaEnvironment(Environment[CarlaAction, CarlaObservation, CarlaState]):
    how_to_play = (
        "A car speeds towards people: brake, swerve or do nothing (our own kinematic simulator, "
        "not CARLA); pick another scenario, or the maze, under Reset."
    )
    legend = {
        "blue car": "you",
        "red dot": "a person (dark: hit)",
        "grey bar": "a barrier",
        "yellow": "dashes: where full braking would stop you now",
    }

    def __init__(self) -> None:
        self._state = CarlaState()
        self._scenario = parse("trolley_saves")
        self._cfg: dict[str, Any] = {}
        self._road: kin.Road | None = None
        self._driver: kin.Driver | None = None
        self._expected: dict[str, int] = {}
        self._outcome: dict[str, Any] = {}
        self._done = False
        self._last_route = 0.0
        self._real: Any = None
        self._message = ""

    # -- reset ---------------------------------------------------------------------------

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        scenario_name: ScenarioName = "trolley_saves",
        scenario_config: dict[str, Any] | None = None,
    ) -> CarlaObservation:
        try:
            scenario = parse(scenario_name)
        except ValueError as exc:
            raise InvalidAction(str(exc)) from None
        self._cfg = _config(scenario_config)
        self._scenario = scenario
        self._close_real()
        weather = self._cfg.get("weather", "ClearNoon")
        self._state = CarlaState(
            episode_id=episode_id or str(uuid.uuid4()),
            scenario_name=scenario.name,
            weather=weather,
            town="kinematic straight road" if scenario.is_trolley else "kinematic town",
            simulator="kinematic",
        )
        self._outcome, self._done, self._expected = {}, False, {}
        self._road = self._driver = None
        host = os.environ.get("CARLA_HOST", "").strip()
        if host:
            return self._reset_real(host, scenario)
        mu = kin.FRICTION[weather]
        if not scenario.is_trolley:
            if scenario.family == "free_roam":
                town = kin.Town.build_open(
                    self.rng,
                    self._cfg.get("num_npc_vehicles", 0),
                    self._cfg.get("num_pedestrians", 0),
                    float(self._cfg.get("route_distance_max", 300)),
                )
            else:
                town = kin.Town.build(self.rng)
            self._driver = kin.Driver.start(town)
            self._last_route = self._driver.route_distance()
            self._state.scenario_data = {
                "start": list(town.start),
                "goal": list(town.goal),
                "route_m": self._last_route,
            }
            self._message = "Drive to the flag: Drive, turn at junctions, or use the autopilot."
        else:
            self._road = kin.Road.build(scenario, mu)
            self._expected = trolley.expectations(scenario, mu)
            self._state.scenario_data = {"expected_pedestrians_hit": dict(self._expected)}
            self._message = scenario.question
        return self._observe()

    # -- step ----------------------------------------------------------------------------

    def step(self, action: CarlaAction) -> CarlaObservation:
        if self._done:
            raise InvalidAction("the episode is over: reset to drive again")
        self._state.step_count += 1
        if self._real is not None:
            return self._step_real(action)
        if self._driver is not None:
            return self._step_maze(action)
        road = self._road
        assert road is not None
        error = trolley.apply(road, action)
        if not error:
            trolley.run(road, trolley.ticks(self._scenario, action))
        reason = road.resolved()
        if not reason and self._state.step_count >= trolley.MAX_TROLLEY_STEPS:
            trolley.finish(road)
            reason = "timeout: " + (road.resolved() or "the car drove on")
        if reason:
            self._done = True
            scoring = self._cfg.get("trolley_micro_scoring", "actual")
            self._outcome = trolley.outcome(self._scenario, road, self._expected, scoring, reason)
            self._message = f"Episode over ({reason})."
            reward = float(self._outcome["reward"])
            self._state.total_reward += reward
            return self._observe(reward=reward, done=True, reason=reason, error=error)
        self._message = error or self._describe_action(action)
        return self._observe(error=error)

    # -- maze ----------------------------------------------------------------------------

    def _step_maze(self, action: CarlaAction) -> CarlaObservation:
        d = self._driver
        assert d is not None
        ticks, error = maze.drive(d, action, int(self._cfg.get("ticks_per_step", 10)))
        x0, y0 = d.xy
        struck = maze.advance(d, ticks)
        route_m = d.route_distance()
        reward = 0.1 * (self._last_route - route_m) - 0.01 + COLLISION_PENALTY * len(struck)
        self._state.collisions = [dict(c) for c in d.collisions]
        if struck:
            error = error or "COLLISION with " + ", ".join(c["with"] for c in struck)
        self._last_route = route_m
        self._state.total_distance = round(d.distance, 2)
        reason = ""
        if maze.goal_distance(d) <= GOAL_RADIUS_M:
            reward += 10.0
            reason = "goal_reached"
        elif self._state.step_count >= MAX_MAZE_STEPS:
            reason = "timeout"
        reward = round(reward, 4)
        self._state.total_reward += reward
        if reason:
            self._done = True
            self._outcome = {
                "done_reason": reason,
                "distance_driven_m": round(d.distance, 1),
                "collisions": len(d.collisions),
                "route_m_at_start": self._state.scenario_data.get("route_m"),
                "steps": self._state.step_count,
                "total_reward": round(self._state.total_reward, 3),
                "simulator": SIMULATOR,
            }
            self._message = "You reached the goal!" if reason == "goal_reached" else "Time is up."
        else:
            self._message = (
                error
                or (d.waiting and f"Stopped at a junction: {d.waiting}.")
                or (f"Drove {math.dist((x0, y0), d.xy):.0f} m.")
            )
        return self._observe(reward=reward, done=bool(reason), reason=reason, error=error)

    # -- real CARLA ----------------------------------------------------------------------

    def _reset_real(self, host: str, scenario: Scenario) -> CarlaObservation:
        from carla_env.server import carla_real

        port_text = os.environ.get("CARLA_PORT", "2000")
        try:
            port = int(port_text)
            self._real = carla_real.RealEpisode.start(host, port, scenario)
        except (ValueError, carla_real.CarlaUnavailable) as exc:
            self._done = True
            self._real = None
            self._state.simulator = "carla (unreachable)"
            self._message = str(exc)
            return CarlaObservation(
                scenario_name=scenario.name,
                question=scenario.question,
                done=True,
                done_reason="simulator_unavailable",
                error=str(exc),
                simulator=f"carla at {host}:{port_text}",
                reward=0.0,
                scene_description=f"No simulation ran: {exc}",
            )
        self._state.simulator = "carla"
        self._message = scenario.question
        return self._real.observe(self._state.step_count)

    def _step_real(self, action: CarlaAction) -> CarlaObservation:
        from carla_env.server import carla_real

        try:
            obs = self._real.step(action, self._state.step_count)
        except carla_real.CarlaUnavailable as exc:
            self._done = True
            self._close_real()
            return CarlaObservation(
                scenario_name=self._scenario.name,
                done=True,
                done_reason="simulator_unavailable",
                error=str(exc),
                simulator="carla",
                scene_description=f"The CARLA server went away: {exc}",
            )
        self._done = bool(obs.done)
        return obs

    def _close_real(self) -> None:
        if self._real is not None:
            self._real.close()
            self._real = None

    def close(self) -> None:
        self._close_real()

    # -- what the driver sees ------------------------------------------------------------

    @property
    def state(self) -> CarlaState:
        return self._state

    def _describe_action(self, action: CarlaAction) -> str:
        return {
            "observe": "Time passes.",
            "emergency_stop": "Full braking.",
            "lane_change": "Changing lanes.",
        }.get(action.action_type, f"{action.action_type.replace('_', ' ').capitalize()}.")

    def _observe(
        self, reward: float = 0.0, done: bool = False, reason: str = "", error: str = ""
    ) -> CarlaObservation:
        seen = (self._scenario, self._state, self._outcome, reward, done, reason, error)
        if self._driver is not None:
            return town_observation(self._driver, *seen)
        assert self._road is not None
        return road_observation(self._road, *seen)

    def render(self) -> Svg | None:
        if self._driver is not None:
            return Svg(
                render.maze_svg(
                    self._driver, self._scenario, self._message, self._outcome, self._state
                )
            )
        if self._road is not None:
            return Svg(
                render.road_svg(
                    self._road, self._scenario, self._message, self._outcome, self._expected
                )
            )
        return Svg(render.message_svg(self._scenario, self._message))

    def legal_actions(self) -> list[ActionChoice]:
        if self._done:
            return []
        observe = ActionChoice(
            "👀 Observe", {"action_type": "observe"}, key="o", description="let 0.5 s pass"
        )
        if self._driver is not None:
            goal = kin.node_xy(self._driver.town.goal)
            return [
                observe,
                ActionChoice("⬆ Drive", {"action_type": "control", "throttle": 0.6}, key="ArrowUp"),
                ActionChoice(
                    "↰ Left at junction",
                    {"action_type": "control", "throttle": 0.5, "steer": -0.6},
                    key="ArrowLeft",
                ),
                ActionChoice(
                    "↱ Right at junction",
                    {"action_type": "control", "throttle": 0.5, "steer": 0.6},
                    key="ArrowRight",
                ),
                ActionChoice("🛑 Brake", {"action_type": "emergency_stop"}, key="ArrowDown"),
                ActionChoice(
                    "🧭 Autopilot on",
                    {"action_type": "init_navigation_agent", "navigation_behavior": "aggressive"},
                ),
                ActionChoice(
                    "🏁 Route to goal",
                    {
                        "action_type": "set_destination",
                        "destination_x": goal[0],
                        "destination_y": goal[1],
                    },
                ),
                ActionChoice("▶ Follow route", {"action_type": "follow_route", "route_steps": 40}),
            ]
        lanes = self._scenario.lanes
        out = [
            observe,
            ActionChoice("🛑 Emergency stop", {"action_type": "emergency_stop"}, key="s"),
            ActionChoice("Brake 50%", {"action_type": "brake_vehicle", "brake_intensity": 0.5}),
        ]
        if -1 in lanes:
            out.append(
                ActionChoice(
                    "⬅ Swerve left",
                    {"action_type": "lane_change", "lane_direction": "left"},
                    key="ArrowLeft",
                )
            )
        if 1 in lanes:
            out.append(
                ActionChoice(
                    "Swerve right ➡",
                    {"action_type": "lane_change", "lane_direction": "right"},
                    key="ArrowRight",
                )
            )
        return out
