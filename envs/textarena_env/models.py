"""Wire types of the TextArena games, named and shaped as the reference ``textarena_env``.

Code written for the reference (TRL's Wordle and Sudoku examples) reads
``observation.messages[0].content`` (the whole game text so far, new text appended at the
end), ``observation.prompt``, ``current_player_id``, ``legal_players`` and ``info``, and acts
with ``TextArenaAction(message="[crane]")``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from openenv.core import Action, Observation, State

MAX_MESSAGE_CHARS = 1000


class TextArenaMessage(BaseModel):
    """One message a player sees: who sent it (-1 the game), its text, its kind."""

    sender_id: int = Field(default=-1, description="Player id of the sender; -1 is the game")
    content: str = Field(default="", description="The message text")
    category: str = Field(default="MESSAGE", description="Kind of message, e.g. MESSAGE, PROMPT")


class TextArenaAction(Action):
    message: str = Field(
        max_length=MAX_MESSAGE_CHARS,
        description="Your move as the game asks for it, e.g. '[crane]', '[3 4]', '[A C]'",
    )


class TextArenaObservation(Observation):
    prompt: str = Field(default="", description="The game's instructions to the player")
    messages: list[TextArenaMessage] = Field(
        default_factory=list,
        description="messages[0].content: everything the player has seen, new text at the end",
    )
    current_player_id: int = Field(default=0, description="Whose turn it is (the agent is 0)")
    legal_players: list[int] = Field(default_factory=list, description="Player ids in the game")
    info: dict[str, Any] = Field(default_factory=dict, description="The game's step info")


class TextArenaState(State):
    env_id: str = "Wordle-v0"
    num_players: int = 1
    max_turns: int | None = None
    turn: int = 0
    last_reward: float = 0.0
    last_info: dict[str, Any] = Field(default_factory=dict)
    task_source: str | None = None  # the task file or dataset the game is a row of
    task_index: int | None = None  # its row there
    raw_state: dict[str, Any] = Field(
        default_factory=dict, description="Turn, rewards, roles; hidden answers left out"
    )
