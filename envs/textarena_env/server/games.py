"""The TextArena games this server offers, and how one is built offline.

Every game here was checked to reset and step on a machine without network, API keys or
downloaded NLTK data (tests/test_env_textarena.py plays each). Why the rest of TextArena's
registry is left out is in the README.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal, get_args

from textarena_env.server.offline import textarena

GameId = Literal[
    "Wordle-v0",
    "Hangman-v0",
    "Sudoku-v0",
    "Sudoku-v0-easy",
    "Mastermind-v0",
    "TowerOfHanoi-v0",
    "Minesweeper-v0",
    "Minesweeper-v0-small",
    "TicTacToe-v0",
    "ConnectFour-v0",
    "2048-v0",
    "Bandit-v0",
    "Blackjack-v0",
    "FifteenPuzzle-v0",
    "FrozenLake-v0",
    "GuessTheNumber-v0",
    "LightsOut-v0",
    "LogicPuzzle-v0",
    "PegJump-v0",
    "RushHour-v0",
    "Secretary-v0",
    "Sokoban-v0",
    "ThreeCardMonte-v0",
]
GAME_IDS: tuple[str, ...] = get_args(GameId)


@dataclass(frozen=True)
class Game:
    """What this server knows about one TextArena game beyond TextArena's registry."""

    players: int = 1
    data: tuple[str, ...] = ()  # NLTK resources the game reads
    hidden: tuple[str, ...] = ()  # game_state keys never shown in the state (answers)
    entry_point: str | None = None  # our replacement class, "module:Class"
    example: str = ""


_HIDDEN_WORD = ("secret_word", "target_word", "target_letters")
GAMES: dict[str, Game] = {
    "Wordle-v0": Game(
        data=("words",),
        hidden=_HIDDEN_WORD,
        entry_point="textarena_env.server.wordle:OfflineWordleEnv",
        example="[crane]",
    ),
    "Hangman-v0": Game(data=("words",), hidden=_HIDDEN_WORD, example="[e]"),
    "Sudoku-v0": Game(example="[1 3 5]"),
    "Sudoku-v0-easy": Game(example="[1 3 5]"),
    "Mastermind-v0": Game(hidden=("secret_code",), example="[1 2 3 4]"),
    "TowerOfHanoi-v0": Game(example="[A C]"),
    "Minesweeper-v0": Game(hidden=("grid",), example="[3 4]"),
    "Minesweeper-v0-small": Game(hidden=("grid",), example="[2 2]"),
    "TicTacToe-v0": Game(players=2, example="[4]"),
    "ConnectFour-v0": Game(players=2, example="[col 3]"),
    "2048-v0": Game(example="[up]"),
    "Bandit-v0": Game(hidden=("ground_truth",), example="[red]"),
    "Blackjack-v0": Game(hidden=("dealer_hand",), example="[hit]"),
    "FifteenPuzzle-v0": Game(example="[up]"),
    "FrozenLake-v0": Game(example="[down]"),
    "GuessTheNumber-v0": Game(hidden=("game_number",), example="[10]"),
    "LightsOut-v0": Game(example="[2 2]"),
    "LogicPuzzle-v0": Game(hidden=("solution",), example=""),
    "PegJump-v0": Game(example="[4 1]"),
    "RushHour-v0": Game(example="[A+]"),
    "Secretary-v0": Game(hidden=("draws",), example="[continue]"),
    "Sokoban-v0": Game(example="[up]"),
    "ThreeCardMonte-v0": Game(hidden=("ball_pos",), example="[1]"),
}
assert set(GAMES) == set(GAME_IDS), "GameId and GAMES list different games"


def build(env_id: str) -> Any:
    """A fresh game as ``textarena.make`` builds it, minus the LLM observation wrapper (this
    server keeps the text itself) and with our replacement class where one exists."""
    ta = textarena()
    from textarena.envs.registration import ENV_REGISTRY
    from textarena.wrappers import LLMObservationWrapper

    spec = ENV_REGISTRY[env_id]
    entry = GAMES[env_id].entry_point or spec.entry_point
    module, name = entry.split(":")
    env = getattr(importlib.import_module(module), name)(**spec.kwargs)
    env.env_id, env.entry_point = env_id, entry
    for wrapper in spec.default_wrappers or ():
        if wrapper is not LLMObservationWrapper:
            env = wrapper(env)
    assert isinstance(env, ta.Env)
    return env


def unwrapped(env: Any) -> Any:
    """The game under its wrappers (where boards and grids live)."""
    while hasattr(env, "env"):
        env = env.env
    return env
