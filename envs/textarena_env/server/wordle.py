"""TextArena's Wordle without NLTK's part-of-speech tagger.

The original keeps the nouns of NLTK's basic word list by tagging every word with
``averaged_perceptron_tagger_eng``, a model this server cannot download. This subclass keeps
every word of the right length from the shipped ``en-basic`` list instead, and builds the
English dictionary that judges guesses once per process rather than once per game.
"""

from __future__ import annotations

import functools
from typing import Any

from textarena_env.server.offline import textarena

textarena()  # NLTK offline before TextArena's Wordle module runs its import-time checks
from nltk.corpus import words  # noqa: E402
from textarena.envs.utils.word_lists import EnglishDictionary  # noqa: E402
from textarena.envs.Wordle.env import WordleEnv  # noqa: E402


@functools.cache
def _dictionary() -> EnglishDictionary:
    return EnglishDictionary(keep_proper_nouns=False, include_nltk=True)


class OfflineWordleEnv(WordleEnv):
    """Wordle with hidden words from the shipped list; guesses judged as in TextArena."""

    def __init__(self, word_length: int = 5, num_guesses: int = 6, **kwargs: Any) -> None:
        self.word_length = word_length
        self.num_guesses = num_guesses
        self._load_word_list(hardcore=bool(kwargs.get("hardcore", False)))
        self.dictionary = _dictionary()

    def _load_word_list(self, hardcore: bool = False) -> None:
        listed = words.words("en" if hardcore else "en-basic")
        self.word_list = sorted({w for w in listed if len(w) == self.word_length})
