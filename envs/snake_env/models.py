"""Wire types of snake, shared by its client and its server.

Grid codes: 0 empty, 1 body, 2 head, 3 food, 4 outside the board (only in a partial view).
"""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from openenv.core import Action, Observation, State

EMPTY, BODY, HEAD, FOOD, OUTSIDE = 0, 1, 2, 3, 4


class Direction(str, Enum):
    """Absolute directions on the board; UP is towards row 0."""

    UP = "UP"
    DOWN = "DOWN"
    LEFT = "LEFT"
    RIGHT = "RIGHT"


class SnakeAction(Action):
    action: Direction = Field(description="Direction for the head: UP, DOWN, LEFT or RIGHT")


class SnakeObservation(Observation):
    grid: list[list[int]] = Field(
        default_factory=list,
        description="What the snake sees, row by row: the whole board, or the window around the "
        "head when view_radius ≥ 1 (0 empty, 1 body, 2 head, 3 food, 4 outside)",
    )
    direction: Direction = Field(default=Direction.RIGHT, description="Where the head points")
    length: int = Field(default=0, description="Length of the snake")
    alive: bool = Field(default=True, description="False once the snake hit a wall or itself")
    legal_actions: list[Direction] = Field(
        default_factory=list, description="Directions allowed now (never straight back)"
    )
    episode_score: float = Field(default=0.0, description="Sum of the rewards so far")
    episode_steps: int = Field(default=0, description="Steps taken so far")
    episode_fruits: int = Field(default=0, description="Food eaten so far")
    message: str = Field(default="", description="What happened")


class SnakeState(State):
    width: int = 10
    height: int = 10
    body: list[list[int]] = Field(default_factory=list, description="[col, row] cells, head first")
    food: list[int] | None = None
    direction: Direction = Direction.RIGHT
    alive: bool = True
    episode_score: float = 0.0
    episode_fruits: int = 0
