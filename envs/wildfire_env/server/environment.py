"""Wildfire containment: drop water and cut firebreaks, under a budget, while the fire spreads.

Each step applies the agent's action, then the fire advances one tick (see ``fire.py`` for the
spread model). Rewards come from a rubric (``rubrics.py``), one named component each: -0.01 per
step, +0.1 per burning cell a water drop puts out, -0.1 per cell that catches fire; when the
episode ends, + the share of cells still vegetated, and +0.5 more if the fire is out. The
episode ends when no cell burns or after ``max_steps`` steps. Illegal actions follow
:mod:`openenv.core.rules`. See the package README for every option.
"""

from __future__ import annotations

import uuid
from typing import Annotated

import numpy as np
from pydantic import Field

from openenv.core import ActionChoice, Environment, Frame, InvalidAction
from openenv.core.rules import IllegalMovePolicy, check_policy, illegal_move
from wildfire_env.models import FireAction, WildfireAction, WildfireObservation, WildfireState
from wildfire_env.server.drawing import frame
from wildfire_env.server.fire import (
    ASH,
    BREAK,
    BURNING,
    DAMP,
    FUEL,
    NEIGHBOURS,
    WINDS,
    Forest,
    Wind,
)
from wildfire_env.server.rubrics import Tally, wildfire_rubric

SUGGESTIONS = 6  # buttons offered per kind of action
MIN_SIZE, MAX_SIZE = 8, 64
MAX_HEAD_START = 20
MAX_STEPS = 100_000  # what a visitor may make an episode cost
MAX_CAPACITY = MAX_STEPS  # a step spends one drop or break at most: more is never spent
Size = Annotated[int, Field(ge=MIN_SIZE, le=MAX_SIZE)]
Capacity = Annotated[int, Field(ge=0, le=MAX_CAPACITY)]
_NAMES = {ASH: "ash", FUEL: "fuel", BURNING: "burning", BREAK: "a firebreak", DAMP: "damp"}


def _check_options(width, height, wind, init_sources) -> None:
    if wind is not None and wind not in WINDS:
        raise InvalidAction(f"wind must be one of {', '.join(WINDS)} or null; got {wind!r}")
    if init_sources > width * height // 4:
        raise InvalidAction(f"init_sources must be 1..{width * height // 4}; got {init_sources}")


class WildfireEnvironment(Environment[WildfireAction, WildfireObservation, WildfireState]):
    how_to_play = (
        "Stop the fire spreading: drop water on burning cells or cut firebreaks downwind, "
        "within your budget; ⏳ Wait lets it spread one tick."
    )
    legend = {
        "#2e7d32": "forest",
        "#ff6e00": "burning",
        "#464646": "ash",
        "#8b5a2b": "firebreak",
        "#4678e6": "damp (watered)",
    }
    render_fps = 4  # frames per second of its autoplay and videos

    def __init__(self) -> None:
        self._forest = Forest.generate(np.random.default_rng(0), (8, 8), "CALM", 0.25)
        self._state = WildfireState()
        self._policy = check_policy("refuse")
        self._ticks = 0
        self._tally = Tally()  # what the last step did, for the rubric
        self.rubric = wildfire_rubric(lambda: self._tally)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        width: Size = 16,
        height: Size = 16,
        humidity: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.25,
        wind: Wind | None = None,
        init_sources: Annotated[int, Field(ge=1)] = 2,
        head_start: Annotated[int, Field(ge=0, le=MAX_HEAD_START)] = 3,
        max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] = 100,
        water_capacity: Capacity = 10,
        break_capacity: Capacity = 30,
        illegal_move: IllegalMovePolicy = "refuse",
    ) -> WildfireObservation:
        _check_options(width, height, wind, init_sources)
        self._policy = check_policy(illegal_move)
        wind = wind or self.rng.choice(sorted(WINDS))
        self._forest = Forest.generate(self.np_random, (height, width), wind, humidity)
        self._forest.ignite(self.np_random, init_sources, head_start)
        self._ticks = 0
        self._state = WildfireState(
            episode_id=episode_id or str(uuid.uuid4()),
            width=width,
            height=height,
            wind_dir=wind,
            humidity=humidity,
            remaining_water=water_capacity,
            remaining_breaks=break_capacity,
            max_steps=max_steps,
        )
        burning = self._forest.count(BURNING)
        return self._observe(f"{burning} cells are burning; wind towards {wind}. Contain the fire!")

    def step(self, action: WildfireAction) -> WildfireObservation:
        reason = self._refusal(action)
        if reason is not None:
            meta = illegal_move(self._policy, reason)  # raises under the default "refuse"
            self._state.step_count += 1
            self._tally = Tally(illegal=True)
            return self._observe(reason, done=True, meta=meta)
        put_out, did = self._apply(action)
        ignited, burnt = self._forest.tick(self.np_random)
        self._ticks += 1
        s = self._state
        s.step_count += 1
        s.total_extinguished += put_out
        s.total_burned += burnt
        s.last_action = action.action.value
        self._tally = Tally(put_out=put_out, ignited=ignited)
        message = f"{did} Fire spread to {ignited} cell(s); {burnt} burnt out."
        burning = self._forest.count(BURNING)
        if burning == 0 or s.step_count >= s.max_steps:
            message += " The fire is out!" if burning == 0 else " Time is up."
            return self._observe(message, done=True)
        return self._observe(message)

    @property
    def state(self) -> WildfireState:
        return self._state

    def render(self) -> Frame:
        return Frame(frame(self._forest))

    def legal_actions(self) -> list[ActionChoice]:
        """Wait, plus water drops on the fire and firebreaks at its edge, most downwind first."""
        if self.episode_over:
            return []
        choices = [ActionChoice("⏳ Wait", {"action": "wait"}, key=" ")]
        if self._state.remaining_water:
            choices += [
                ActionChoice(f"💧 Water ({x}, {y})", {"action": "water", "x": x, "y": y})
                for y, x in self._downwind(self._forest.cells == BURNING)
            ]
        if self._state.remaining_breaks:
            choices += [
                ActionChoice(f"🧱 Break ({x}, {y})", {"action": "break", "x": x, "y": y})
                for y, x in self._downwind(self._fire_edge())
            ]
        return choices

    # -- actions --------------------------------------------------------------------------

    def _refusal(self, action: WildfireAction) -> str | None:
        """Why ``action`` cannot be carried out now, or None when it can."""
        if action.action is FireAction.WAIT:
            return None
        name = action.action.value
        if action.x is None or action.y is None:
            return f"{name} needs target coordinates x (column) and y (row)"
        height, width = self._forest.shape
        if not self._forest.inside(action.y, action.x):
            where = f"({action.x}, {action.y})"
            return f"{where} is off the map; x must be 0..{width - 1}, y 0..{height - 1}"
        if action.action is FireAction.WATER:
            if not self._state.remaining_water:
                return "no water left; cut firebreaks or wait"
            if not self._forest.can_wet(action.y, action.x):
                return f"nothing to wet around ({action.x}, {action.y}): only ash and firebreaks"
            return None
        if not self._state.remaining_breaks:
            return "no firebreaks left; drop water or wait"
        code = int(self._forest.cells[action.y, action.x])
        if code not in (FUEL, DAMP):
            return f"a firebreak needs vegetation; ({action.x}, {action.y}) is {_NAMES[code]}"
        return None

    def _apply(self, action: WildfireAction) -> tuple[int, str]:
        """Carry out a valid action; return (fires put out, what was done in words)."""
        if action.action is FireAction.WATER:
            self._state.remaining_water -= 1
            put_out = self._forest.drop_water(action.y, action.x)
            return put_out, f"Water dropped on ({action.x}, {action.y}): {put_out} fire(s) out."
        if action.action is FireAction.BREAK:
            self._state.remaining_breaks -= 1
            self._forest.build_break(action.y, action.x)
            return 0, f"Firebreak cut at ({action.x}, {action.y})."
        return 0, "Waited."

    # -- helpers --------------------------------------------------------------------------

    def _fire_edge(self) -> np.ndarray:
        """Fuel cells next to a burning cell."""
        burning = np.pad(self._forest.cells == BURNING, 1)
        height, width = self._forest.shape
        near = np.zeros((height, width), dtype=bool)
        for dy, dx in NEIGHBOURS:
            near |= burning[1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width]
        return near & (self._forest.cells == FUEL)

    def _downwind(self, mask: np.ndarray) -> list[tuple[int, int]]:
        wy, wx = WINDS[self._forest.wind]
        cells = [(int(y), int(x)) for y, x in zip(*np.nonzero(mask), strict=True)]
        cells.sort(key=lambda c: (-(c[0] * wy + c[1] * wx), c[0], c[1]))
        return cells[:SUGGESTIONS]

    def _saved_ratio(self) -> float:
        cells = self._forest.cells
        return float(np.isin(cells, (FUEL, DAMP)).mean())

    def _observe(
        self, message: str, done: bool = False, meta: dict | None = None
    ) -> WildfireObservation:
        forest, s = self._forest, self._state
        height, width = forest.shape
        return WildfireObservation(
            grid=[int(v) for v in forest.cells.ravel()],
            width=width,
            height=height,
            step=self._ticks,
            wind_dir=forest.wind,
            humidity=forest.humidity,
            burning_count=forest.count(BURNING),
            burned_count=forest.count(ASH),
            remaining_water=s.remaining_water,
            remaining_breaks=s.remaining_breaks,
            saved_ratio=round(self._saved_ratio(), 4),
            message=message,
            reward=0.0,  # on steps the base class puts the rubric's score here
            done=done,
            metadata=meta or {},
        )
