"""Wire types of the maze, shared by its client and its server.

Positions are ``[col, row]`` with ``[0, 0]`` at the top-left corner.
"""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
ACTION_NAMES = {UP: "UP", DOWN: "DOWN", LEFT: "LEFT", RIGHT: "RIGHT"}


class MazeAction(Action):
    action: int = Field(description="0 = up, 1 = down, 2 = left, 3 = right")


class MazeObservation(Observation):
    current_position: list[int] = Field(default_factory=list, description="Agent as [col, row]")
    previous_position: list[int] | None = Field(
        default=None, description="Where the agent was before this step ([col, row])"
    )
    exit_cell: list[int] = Field(default_factory=list, description="The exit as [col, row]")
    legal_actions: list[int] = Field(
        default_factory=list, description="Moves that do not hit a wall or leave the maze"
    )
    maze: list[list[int]] = Field(
        default_factory=list, description="The layout row by row: 0 = open, 1 = wall"
    )
    status: str = Field(default="playing", description="playing, win or lose (out of steps)")
    message: str = Field(default="", description="What happened")


class MazeState(State):
    layout: str = "classic"
    current_position: list[int] = Field(default_factory=list)
    exit_cell: list[int] = Field(default_factory=list)
    status: str = "playing"
    done: bool = False
