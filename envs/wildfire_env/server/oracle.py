"""Wildfire's oracle: a containment planner that looks ahead on a copy of the fire.

At every step it tries each candidate (wait, a water drop on each distinct group of burning
cells, a firebreak at the downwind edge) on a copy of the forest and of the episode's random
generator, finishes that copy with a greedy follow-up (drop water where it puts out the most
fires, else wait) and plays the candidate whose copy ends best by the env's own reward. The
copy draws what the env will draw, so the plan is exact for the next tick and a good guess for
the rest.

Score: the share of the map still vegetated (``saved_ratio``) when the episode ends with the
fire out, the env's ``land_saved`` component under its ``contained`` condition; 0 when the
fire still burns at the end or the episode never ends (the floor). The maximum, 1.0, is the
whole forest standing; the oracle saves 98.4 % on the validator's seed 0 (tolerance 0.05),
and 94 % to 100 % over seeds 0-29. A random policy over the env's suggestions puts fires out
too, more slowly: 62-85 % saved on seeds 1-3; waiting lets the fire burn itself out over the
map (3-14 % saved). Canaries drop water off the map, cut a firebreak in a burning cell (both
refused) and let the fire burn.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from openenv.validation.oracle import Canary, Oracle
from wildfire_env.server.fire import BURNING, DAMP, FUEL, Forest
from wildfire_env.server.rubrics import WEIGHTS

CANDIDATE_DROPS = 12  # water drops tried per step, those putting out the most fires first

Move = tuple[str, int, int]  # ("wait" | "water" | "break", y, x)


class WildfireOracle(Oracle):
    score_range = (0.0, 1.0)
    tolerance = 0.05
    floor_margin = 0.2
    max_steps = 100  # the env's default max_steps: every episode ends within it
    probe_steps = 20

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        forest, s = env._forest, env.state
        if env.episode_over or not forest.count(BURNING):
            return None
        candidates: list[Move] = [("wait", 0, 0)]
        if s.remaining_water:
            candidates += [("water", y, x) for y, x in _drops(forest)[:CANDIDATE_DROPS]]
        if s.remaining_breaks:
            candidates += [
                ("break", c.fields()["y"], c.fields()["x"])
                for c in env.legal_actions()
                if c.fields()["action"] == "break"
            ]
        budget = (s.remaining_water, s.remaining_breaks, s.max_steps - s.step_count)
        best = max(candidates, key=lambda m: _outcome(forest, env.np_random, budget, m))
        kind, y, x = best
        return {"action": "wait"} if kind == "wait" else {"action": kind, "x": x, "y": y}

    def score_episode(self, episode: Any) -> float:
        last = episode.played[-1] if episode.played else None
        if last is None or not last.done or last.observation is None:
            return 0.0
        obs = last.observation
        return float(obs["saved_ratio"]) if obs["burning_count"] == 0 else 0.0

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat(
                "off_map", "water dropped off the map", {"action": "water", "x": -1, "y": 0}
            ),
            Canary("break_in_fire", "a firebreak cut in a burning cell", _break_in_fire),
            Canary.repeat("let_it_burn", "waits while the fire burns the map", {"action": "wait"}),
        ]


def _drops(forest: Forest) -> list[tuple[int, int]]:
    """(y, x) centres of water drops, one per distinct set of fires they put out, most first."""
    burning = forest.cells == BURNING
    near = np.zeros_like(burning)  # centres whose square holds a fire
    for y, x in np.argwhere(burning):
        near[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2] = True
    best: dict[bytes, tuple[int, int, int]] = {}
    for y, x in np.argwhere(near):
        square = np.zeros_like(burning)
        square[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2] = True
        covered = burning & square
        count, key = int(covered.sum()), covered.tobytes()
        if key not in best or count > best[key][0]:
            best[key] = (count, int(y), int(x))
    return [(y, x) for _, y, x in sorted(best.values(), reverse=True)]


def _outcome(forest: Forest, rng: np.random.Generator, budget: tuple, move: Move) -> float:
    """The env's reward from here on if it plays ``move``, then the greedy follow-up."""
    forest, rng = copy.deepcopy(forest), copy.deepcopy(rng)
    water, breaks, steps_left = budget
    total = 0.0
    while True:
        kind, y, x = move
        if kind == "water":
            water -= 1
            total += WEIGHTS["extinguished"] * forest.drop_water(y, x)
        elif kind == "break":
            breaks -= 1
            forest.build_break(y, x)
        ignited, _ = forest.tick(rng)
        total += WEIGHTS["spread"] * ignited + WEIGHTS["time"]
        steps_left -= 1
        out = forest.count(BURNING) == 0
        if out or steps_left <= 0:
            saved = float(np.isin(forest.cells, (FUEL, DAMP)).mean())
            return total + WEIGHTS["land_saved"] * saved + (WEIGHTS["contained"] if out else 0.0)
        drops = _drops(forest) if water else []
        move = ("water", *drops[0]) if drops else ("wait", 0, 0)


def _break_in_fire(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    cells = np.argwhere(env._forest.cells == BURNING)
    if not len(cells):
        return None
    y, x = (int(v) for v in cells[0])
    return {"action": "break", "x": x, "y": y}


ORACLE = WildfireOracle()
