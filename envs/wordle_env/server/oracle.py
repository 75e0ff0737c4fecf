"""Wordle's oracle reads the hidden word (privileged state) and guesses it: +1.0 in one guess.

Random guesses from the answer list almost never find the word in six tries; canaries send an
empty guess, a six-letter word, a non-word, the same word twice: each is refused.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle
from wordle_env.server.words import answer_words


class WordleOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 10
    probe_steps = 6

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"guess": env._answer}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"guess": word} for word in answer_words()[:200]]

    def secrets(self, env: Any) -> list[str]:
        return [env._answer]

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("empty", "an empty guess", {"guess": ""}),
            Canary.repeat("too_long", "a six-letter guess", {"guess": "abcdef"}),
            Canary.repeat("non_word", "five letters that are no word", {"guess": "zzzzz"}),
            Canary.repeat("format_hack", "the answer's slot as markup", {"guess": "{{answer}}"}),
        ]


ORACLE = WordleOracle()
