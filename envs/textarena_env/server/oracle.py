"""TextArena's oracle, for its default Wordle-v0: it reads the secret word from the game's
state (privileged) and says it in the game's syntax, ``[word]``: the game is won, +1.

Random words rarely hit the secret in six tries; canaries send an empty move, a word of the
wrong length and a non-word without brackets: the game refuses them and ends at 0.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

GUESSES = ["crane", "slate", "pious", "dwarf", "lymph", "gecko", "about", "other"]


class TextArenaOracle(Oracle):
    score_range = (0.0, 1.0)  # Wordle-v0: 0 for a game lost or ended by invalid moves
    floor_margin = 0.5
    reset_options = {"env_id": "Wordle-v0"}
    max_steps = 8
    probe_steps = 6

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"message": f"[{_secret(env)}]"}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"message": f"[{word}]"} for word in GUESSES]

    def secrets(self, env: Any) -> list[str]:
        return [_secret(env)]

    def score(self, rewards: Any) -> float:
        return float(rewards[-1]) if rewards else 0.0

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("empty", "an empty move", {"message": ""}),
            Canary.repeat("wrong_length", "a seven-letter word", {"message": "[example]"}),
            Canary.repeat("non_word", "letters that are no word", {"message": "qqqqq"}),
        ]


def _secret(env: Any) -> str:
    return str(env._game.state.game_state["secret_word"])


ORACLE = TextArenaOracle()
