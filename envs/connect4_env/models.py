"""Wire types of Connect Four, shared by its client and its server.

The board is 6 rows × 7 columns, row 0 at the top. Cells hold 0 (empty), 1 (the agent, or the
first player with a human opponent) or -1 (the opponent, or the second player).
"""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State


class Connect4Action(Action):
    column: int = Field(description="Column to drop a piece into, 0 (left) to 6 (right)")


class Connect4Observation(Observation):
    board: list[list[int]] = Field(
        default_factory=list,
        description="6×7 grid, row 0 at the top: 0 empty, 1 agent, -1 opponent",
    )
    legal_actions: list[int] = Field(default_factory=list, description="Columns that are not full")
    current_player: int = Field(default=1, description="Who moves next: 1 or -1")
    opponent: str = Field(default="random", description="random, search or human")
    last_column: int | None = Field(default=None, description="Column of the agent's last move")
    opponent_column: int | None = Field(
        default=None,
        description="Column the built-in opponent played in reply (None if it did not)",
    )
    winner: int | None = Field(
        default=None, description="1 or -1 once someone connects four, 0 for a draw, else None"
    )
    message: str = Field(default="", description="What happened")


class Connect4State(State):
    board: list[list[int]] = Field(default_factory=list)
    next_player: int = 1
    opponent: str = "random"
    winner: int | None = None
    moves: list[int] = Field(default_factory=list, description="Every column played, in order")
