"""Wire types of 2048, shared by its client and its server."""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from openenv.core import Action, Observation, State


class Direction(str, Enum):
    """Which way every tile slides."""

    UP = "UP"
    DOWN = "DOWN"
    LEFT = "LEFT"
    RIGHT = "RIGHT"


class Game2048Action(Action):
    action: Direction = Field(description="Slide the tiles UP, DOWN, LEFT or RIGHT")


class Game2048Observation(Observation):
    board: list[list[int]] = Field(
        default_factory=list, description="4×4 tile values row by row from the top; 0 is empty"
    )
    score: int = Field(default=0, description="Sum of every merged tile so far")
    max_tile: int = Field(default=0, description="Largest tile on the board")
    legal_actions: list[Direction] = Field(
        default_factory=list, description="Directions that change the board"
    )
    spawned: list[int] | None = Field(
        default=None, description="The tile the game added after the move: [row, col, value]"
    )
    won: bool = Field(default=False, description="True once a tile reached the target")
    message: str = Field(default="", description="What happened")


class Game2048State(State):
    board: list[list[int]] = Field(default_factory=list)
    score: int = 0
    target: int = 2048
    won: bool = False
