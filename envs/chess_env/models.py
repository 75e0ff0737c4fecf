"""Wire types of the chess environment, shared by its client and its server."""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State


class ChessAction(Action):
    move: str = Field(
        description="A move in UCI notation (e2e4, e7e8q); SAN such as Nf3 is accepted too"
    )


class ChessObservation(Observation):
    fen: str = Field(default="", description="Position in FEN notation")
    legal_moves: list[str] = Field(
        default_factory=list, description="Legal moves of the side to move, in UCI notation"
    )
    is_check: bool = Field(default=False, description="Whether the side to move is in check")
    result: str | None = Field(
        default=None, description='Game result once over: "1-0", "0-1" or "1/2-1/2"'
    )
    evaluation: int = Field(
        default=0, description="Position evaluation in centipawns; positive favours White"
    )
    turn: str = Field(default="white", description="Side to move: white or black")
    agent_color: str = Field(
        default="white", description="The agent's side: white, black, or both in self-play"
    )
    agent_move: str | None = Field(default=None, description="The move the agent just played (UCI)")
    opponent_move: str | None = Field(
        default=None, description="The opponent's reply inside this step (UCI), if any"
    )
    opponent_move_san: str | None = Field(
        default=None, description="The opponent's reply in SAN, if any"
    )
    message: str = Field(default="", description="What happened, in words")


class ChessState(State):
    fen: str = ""
    current_player: str = "white"
    move_history: list[str] = Field(default_factory=list, description="Every ply, in UCI")
    agent_color: str = "white"
    opponent: str = "moonfish"
    opponent_engine: str = "moonfish"
    opponent_depth: int = 2
    result: str | None = None
