"""SUMO's oracle: a longest-queue-first controller on sumo-rl's single intersection.

Every step it gives each light the green phase whose incoming lanes hold the longest queue
(the ``queue`` the observation carries, per lane), reading from the network which lanes each
green phase lets through. The episode is ``num_seconds=1000`` (200 steps of 5 s), seeded
demand as always.

Score: a service level. The measure is the accumulated waiting time of the vehicles at the
lights (the observation's ``waiting_time``, the reward's ``waiting_time`` component x 100),
averaged over the episode's steps; the score is ``min(1, LIMIT_S / that mean)``: 1.0 when the
mean stays under ``LIMIT_S`` (100 s), less in proportion above it, 0 for an episode that does
not run its full length (the floor). The oracle averages 47-61 s over seeds 0-9 (score 1). A
fixed-time plan switching every 10 s averages 166 s (0.6), every 30 s 307 s (0.33); random
phases 315-470 s on seeds 1-3 (0.27 on average); one phase forever (the null policy) starves
the other road, over 17 000 s (0.006). Canaries ask for a phase the light does not have and
for a light that does not exist (refused).
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

LIMIT_S = 100.0  # the service level: mean accumulated waiting seconds at the lights
EPISODE_S, STEP_S = 1000, 5


class SumoOracle(Oracle):
    score_range = (0.0, 1.0)
    tolerance = 0.0
    floor_margin = 0.5
    reset_options = {
        "net": "single-intersection",
        "num_seconds": EPISODE_S,
        "delta_time": STEP_S,
        "reward_fn": "diff-waiting-time",
    }
    max_steps = EPISODE_S // STEP_S + 10  # 200 steps end the episode
    probe_steps = 10

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if observation.done or env._sim is None:
            return None
        served = _served_lanes(env)
        phases = {}
        for light in observation.traffic_lights:
            queue = dict(zip(light.lanes, light.queue, strict=True))
            totals = [sum(queue.get(lane, 0.0) for lane in lanes) for lanes in served[light.id]]
            phases[light.id] = max(range(len(totals)), key=totals.__getitem__)
        return {"phases": phases}

    def score_episode(self, episode: Any) -> float:
        played = episode.played
        if not played or not played[-1].done:
            return 0.0
        waits = [float(s.observation["waiting_time"]) for s in played if s.observation]
        mean = sum(waits) / len(waits)
        return 1.0 if mean <= LIMIT_S else round(LIMIT_S / mean, 6)

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat(
                "no_such_phase", "a green phase the light does not have", {"phase_id": 9}
            ),
            Canary.repeat(
                "no_such_light", "a light that is not in the network", {"phases": {"x": 0}}
            ),
        ]


def _served_lanes(env: Any) -> dict[str, list[set[str]]]:
    """Per light, per green phase: the incoming lanes whose links that phase shows green."""
    served: dict[str, list[set[str]]] = {}
    for ts_id, signal in env._sim.signals.items():
        links = signal.sumo.trafficlight.getControlledLinks(ts_id)
        served[ts_id] = [
            {links[i][0][0] for i, c in enumerate(phase.state) if c in "Gg" and links[i]}
            for phase in signal.green_phases
        ]
    return served


ORACLE = SumoOracle()
