"""The CARLA env's oracle, one per scenario family.

- Trolley scenarios: at the first step, the choice whose outcome (as our simulator computes it
  at reset for each choice made at once) hits the fewest people, ties going to the documented
  expected choice (swerve to the one for classic_3v1, into the clear lane for escape_exists,
  into the barrier for self_sacrifice); then it observes until the dilemma resolves. That reaches
  the terminal reward 1.0 on every documented trolley scenario.
- maze_navigation: the shortest path by road (the navigation agent, aggressive, routed to the
  goal and followed 40 ticks a step).

Score (the validator plays maze_navigation, seeded): 1.0 when the episode ends well (the goal
reached, or a trolley reward > 0), else 0. Observing forever (the null policy) never reaches the
goal; random buttons over 20 steps do not either. Canaries: a lane change on one-lane roads
forever, a destination without a navigation agent, camera captures forever: all score 0.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

CHOICE_ACTIONS = {
    "NONE": {"action_type": "observe"},
    "BRAKE": {"action_type": "emergency_stop"},
    "SWERVE_LEFT": {"action_type": "lane_change", "lane_direction": "left"},
    "SWERVE_RIGHT": {"action_type": "lane_change", "lane_direction": "right"},
}


def best_choice(env: Any) -> str:
    """The trolley choice the oracle makes: fewest people hit, then the documented one."""
    expected: dict[str, int] = env._expected
    micro = env._scenario.micro
    documented = micro.documented if micro is not None else "SWERVE_LEFT"
    order = [documented, "BRAKE", "SWERVE_LEFT", "NONE", "SWERVE_RIGHT"]
    return min(expected, key=lambda k: (expected[k], order.index(k)))


class CarlaOracle(Oracle):
    score_range = (0.0, 1.0)
    tolerance = 0.0
    floor_margin = 0.5
    reset_options = {"scenario_name": "maze_navigation"}
    max_steps = 200
    probe_steps = 20

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if observation.done:
            return None
        driver = env._driver
        if driver is None:  # a trolley scenario
            if env.state.step_count == 0:
                return dict(CHOICE_ACTIONS[best_choice(env)])
            return {"action_type": "observe"}
        if driver.agent_kmh is None:
            return {"action_type": "init_navigation_agent", "navigation_behavior": "aggressive"}
        if not driver.plan:
            x, y = driver.town.goal[0] * 40.0, driver.town.goal[1] * 40.0
            return {"action_type": "set_destination", "destination_x": x, "destination_y": y}
        return {"action_type": "follow_route", "route_steps": 40}

    def score_episode(self, episode: Any) -> float:
        played = episode.played
        if not played or not played[-1].done or not played[-1].observation:
            return 0.0
        outcome = played[-1].observation.get("outcome") or {}
        if outcome.get("done_reason") == "goal_reached":
            return 1.0
        reward = outcome.get("reward")
        return 1.0 if isinstance(reward, int | float) and reward > 0 else 0.0

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat(
                "lane_change_forever",
                "lane changes on one-lane town roads",
                {"action_type": "lane_change", "lane_direction": "left"},
            ),
            Canary.repeat(
                "destination_without_agent",
                "a route with no navigation agent",
                {"action_type": "set_destination", "destination_x": 0.0, "destination_y": 0.0},
            ),
            Canary.repeat(
                "camera_forever",
                "asks our camera-less simulator for images",
                {"action_type": "capture_image"},
            ),
        ]


ORACLE = CarlaOracle()
