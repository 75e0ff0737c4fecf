"""Games from the rows of a task file or a dataset (reset options ``task_source`` and
``task_index``; the mechanism is :mod:`openenv.core.task_source`).

A row is one game to play, in these columns (other columns are ignored):

* ``env_id`` (or ``game``): one of the games this server offers (:data:`GAMES`), required;
* ``seed``: the game's seed (a whole number, 0 to 2**63 - 1); none: the reset's seed;
* ``secret`` (or ``secret_word``): the hidden word, for the games that hide one (Wordle: as
  long as its words and in the dictionary that judges guesses; Hangman: 1 to 30 letters);
* ``opponent``: the built-in opponent of a two-player game (``heuristic``, ``random``,
  ``human``); none: the reset's.

``tasks/games.jsonl`` ships a few, written for this package. A row that does not fit (an
unknown game, a secret for a game that hides none, a seed that is not a whole number) is an
error naming the row.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from openenv.core.task_source import PickedTask, TaskColumns, TaskRows, TaskSourceError
from textarena_env.server.games import GAMES, unwrapped
from textarena_env.server.opponents import Opponent

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # its tasks/ holds the shipped task files
TASK_ROWS = TaskRows(
    PACKAGE_DIR,
    TaskColumns(
        fields={
            "env_id": ("env_id", "game", "game_id"),
            "seed": ("seed",),
            "secret": ("secret", "secret_word"),
            "opponent": ("opponent",),
        },
        defaults={"seed": None, "secret": None, "opponent": None},
    ),
)
SECRET_GAMES = ("Wordle-v0", "Hangman-v0")  # their reset draws the hidden word from word_list
_SEED: TypeAdapter[int | None] = TypeAdapter(
    Annotated[int, Field(strict=True, ge=0, le=2**63 - 1)] | None
)
_SECRET: TypeAdapter[str | None] = TypeAdapter(
    Annotated[str, Field(strict=True, pattern=r"^[A-Za-z]{1,30}$")] | None
)
_OPPONENT: TypeAdapter[Opponent | None] = TypeAdapter(Opponent | None)


@dataclass(frozen=True)
class RowGame:
    """The game a row names, checked."""

    picked: PickedTask
    env_id: str
    seed: int | None
    secret: str | None
    opponent: Opponent | None


def row_game(picked: PickedTask) -> RowGame:
    """The game of a row; a TaskSourceError names the row and what does not fit."""
    task = picked.task
    env_id = task["env_id"]
    if not isinstance(env_id, str) or env_id not in GAMES:
        shown = str(env_id)[:100]
        raise picked.error(f"unknown game {shown!r}; the games offered: {', '.join(GAMES)}")
    seed = picked.valid(_SEED, task["seed"])
    secret = picked.valid(_SECRET, task["secret"])
    opponent = picked.valid(_OPPONENT, task["opponent"])
    if secret is not None and env_id not in SECRET_GAMES:
        raise picked.error(f"{env_id} hides no word: only {', '.join(SECRET_GAMES)} take a secret")
    if opponent is not None and GAMES[env_id].players != 2:
        raise picked.error(f"{env_id} is a game of one player: it takes no opponent")
    return RowGame(picked, env_id, seed, secret.lower() if secret else None, opponent)


def plant_secret(game: Any, row: RowGame) -> None:
    """Make ``row.secret`` the word the freshly built ``game`` hides at its reset."""
    if row.secret is None:
        return
    inner = unwrapped(game)
    if row.env_id == "Wordle-v0":
        if len(row.secret) != inner.word_length:
            raise row.picked.error(
                f"the secret {row.secret!r} is not {inner.word_length} letters long"
            )
        if not inner._check_word(row.secret):
            raise row.picked.error(
                f"the secret {row.secret!r} is not in Wordle's dictionary: a guess of it "
                "would be refused"
            )
    inner.word_list = [row.secret]


def row_env_id(options: dict[str, Any]) -> str | None:
    """The game the reset ``options`` play from a task source, when they say it without a
    reset (a row number given; else the seed's pick, which the playground does not know)."""
    source, index = options.get("task_source"), options.get("task_index")
    if not source or not isinstance(index, int):
        return None
    try:
        picked = TASK_ROWS.pick(str(source), index, random.Random(0))
    except TaskSourceError:
        return None
    env_id = picked.task["env_id"] if picked is not None else None
    return env_id if isinstance(env_id, str) else None
