"""Wire types of Wordle, shared by its client and its server.

Feedback per guess is a five-letter string: ``G`` right letter in the right place (green),
``Y`` in the word but elsewhere (yellow), ``X`` not in the word (grey).
"""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State


class WordleAction(Action):
    guess: str = Field(description="A five-letter English word")


class WordleObservation(Observation):
    guesses: list[str] = Field(default_factory=list, description="Accepted guesses, in order")
    feedback: list[str] = Field(
        default_factory=list, description="One G/Y/X string per guess (green, yellow, grey)"
    )
    letters: dict[str, str] = Field(
        default_factory=dict, description="Best known colour of every letter guessed so far"
    )
    remaining_guesses: int = Field(default=6, description="Guesses left")
    won: bool = Field(default=False, description="True once the word is found")
    answer: str | None = Field(default=None, description="The hidden word, revealed at the end")
    message: str = Field(default="", description="What happened")


class WordleState(State):
    guesses: list[str] = Field(default_factory=list)
    feedback: list[str] = Field(default_factory=list)
    max_guesses: int = 6
    won: bool = False
