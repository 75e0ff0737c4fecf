"""Small environments whose views take clicks and keys, for the pointer tests:
``uvicorn tests.pointer_apps:canvas`` (a frame: click the red square, type letters) and
``uvicorn tests.pointer_apps:squares`` (a board whose squares are clicked)."""

from __future__ import annotations

import json

import numpy as np
from pydantic import Field

from openenv.core import Action, Board, Cell, Environment, Frame, InvalidAction, Observation, State
from openenv.server import create_app

WIDTH, HEIGHT = 40, 30
TARGET = (slice(10, 20), slice(24, 34))  # rows, columns of the red square


class CommandAction(Action):
    command: str = Field(max_length=200, description='"click X Y", "key NAME" or "mark R C"')


class CanvasObservation(Observation):
    clicked: list[int] | None = None
    typed: str = ""


class CanvasEnvironment(Environment[CommandAction, CanvasObservation, State]):
    """A 40×30 frame with a red square: a click inside it scores 1; typed letters collect."""

    def __init__(self) -> None:
        self._state = State()
        self._clicked: list[int] | None = None
        self._typed = ""

    def reset(self, seed=None, episode_id=None) -> CanvasObservation:
        self._state = State(episode_id=episode_id or "canvas")
        self._clicked, self._typed = None, ""
        return CanvasObservation()

    def step(self, action: CommandAction) -> CanvasObservation:
        verb, _, rest = action.command.partition(" ")
        reward = 0.0
        if verb == "click":
            x, y = (int(v) for v in rest.split())
            self._clicked = [x, y]
            rows, cols = TARGET
            reward = float(rows.start <= y < rows.stop and cols.start <= x < cols.stop)
        elif verb == "key":
            key = json.loads(rest)
            self._typed = self._typed[:-1] if key == "Backspace" else self._typed + key
        else:
            raise InvalidAction(f"unknown command {verb!r}")
        self._state.step_count += 1
        return CanvasObservation(clicked=self._clicked, typed=self._typed, reward=reward)

    @property
    def state(self) -> State:
        return self._state

    def render(self) -> Frame:
        pixels = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
        pixels[TARGET] = (220, 38, 38)
        if self._clicked:
            x, y = self._clicked
            pixels[y, x] = (255, 255, 255)
        return Frame(pixels, click={"command": "click {x} {y}"}, keys={"command": "key {key}"})


class SquaresObservation(Observation):
    marks: list[list[int]] = Field(default_factory=list)


class SquaresEnvironment(Environment[CommandAction, SquaresObservation, State]):
    """A 3×3 board: clicking an empty square marks it; the middle one scores 1."""

    def __init__(self) -> None:
        self._state = State()
        self._marks: list[list[int]] = []

    def reset(self, seed=None, episode_id=None) -> SquaresObservation:
        self._state = State(episode_id=episode_id or "squares")
        self._marks = []
        return SquaresObservation()

    def step(self, action: CommandAction) -> SquaresObservation:
        verb, _, rest = action.command.partition(" ")
        if verb != "mark":
            raise InvalidAction(f"unknown command {verb!r}")
        square = [int(v) for v in rest.split()]
        if square in self._marks:
            raise InvalidAction(f"square {square} is marked already")
        self._marks.append(square)
        self._state.step_count += 1
        return SquaresObservation(marks=list(self._marks), reward=float(square == [1, 1]))

    @property
    def state(self) -> State:
        return self._state

    def render(self) -> Board:
        def cell(r: int, c: int) -> Cell:
            if [r, c] in self._marks:
                return Cell("X", background="#fde68a", label="marked")
            return Cell("", action={"command": f"mark {r} {c}"}, label=f"mark {r} {c}")

        return Board([[cell(r, c) for c in range(3)] for r in range(3)])


canvas = create_app(CanvasEnvironment)
squares = create_app(SquaresEnvironment)
