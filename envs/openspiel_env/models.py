"""Wire types of the OpenSpiel environment, shared by its client and its server.

These import without OpenSpiel installed: only the server needs the ``openspiel`` extra.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openenv.core import Action, Observation, State


class OpenSpielAction(Action):
    action_id: int = Field(description="One of the observation's legal_actions")
    game_name: str | None = Field(
        default=None,
        description="Accepted for compatibility with the reference client; the game is chosen "
        "at reset (reset(game_name=...)), not per move",
    )
    game_params: dict[str, Any] = Field(
        default_factory=dict, description="Accepted for compatibility; set game_params at reset"
    )


class OpenSpielObservation(Observation):
    info_state: list[float] = Field(
        default_factory=list, description="Information-state (or observation) tensor of the viewer"
    )
    legal_actions: list[int] = Field(default_factory=list, description="Legal action ids now")
    legal_action_names: list[str] = Field(
        default_factory=list, description="The game's name for each legal action, same order"
    )
    game_phase: str = Field(default="initial", description="initial, playing or terminal")
    current_player_id: int = Field(default=0, description="Player to move (negative when over)")
    opponent_last_action: int | None = Field(
        default=None, description="The opponent's last action id inside this step, if any"
    )
    opponent_last_action_name: str | None = Field(
        default=None, description="The game's name for that action"
    )
    game_name: str = Field(default="", description="OpenSpiel short name of the game")
    observation_string: str = Field(default="", description="The game's text view for the viewer")
    returns: list[float] = Field(
        default_factory=list, description="Every player's total return so far"
    )
    message: str = Field(default="", description="What happened, in words")


class OpenSpielState(State):
    game_name: str = "tic_tac_toe"
    agent_player: int = 0
    opponent_policy: str = "random"
    game_params: dict[str, Any] = Field(default_factory=dict)
    num_players: int = 2
    history: list[int] = Field(default_factory=list, description="Every action applied, in order")
