"""Wire types of the grid world, shared by its client and its server."""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from openenv.core import Action, Observation, State


class MoveAction(str, Enum):
    """UP and DOWN change x (the row); LEFT and RIGHT change y (the column)."""

    UP = "UP"
    DOWN = "DOWN"
    LEFT = "LEFT"
    RIGHT = "RIGHT"


class GridWorldAction(Action):
    action: MoveAction = Field(description="Direction to move")


class GridWorldObservation(Observation):
    x: int = Field(default=0, description="Agent row, 0 at the top")
    y: int = Field(default=0, description="Agent column, 0 at the left")
    message: str = Field(default="", description="Status message")


class GridWorldState(State):
    x: int = 0
    y: int = 0
