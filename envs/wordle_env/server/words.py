"""The shipped word list and Wordle's scoring of a guess."""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

WORD_LENGTH = 5
WORDS_FILE = Path(__file__).resolve().parent.parent / "words.txt"
GREEN, YELLOW, GREY = "G", "Y", "X"
_RANK = {GREY: 0, YELLOW: 1, GREEN: 2}


@functools.cache
def allowed_words() -> frozenset[str]:
    """Every word accepted as a guess (the package's ``words.txt``)."""
    lines = WORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(w for w in (line.strip() for line in lines) if w and not w.startswith("#"))


@functools.cache
def answer_words() -> tuple[str, ...]:
    """Words that can be the hidden word: the list without most plurals (a single final s)."""
    return tuple(sorted(w for w in allowed_words() if not (w.endswith("s") and w[-2] != "s")))


def score(guess: str, answer: str) -> str:
    """Feedback for ``guess``: G/Y/X per letter; repeated letters are coloured at most as
    many times as they occur in the answer, greens first."""
    marks = [GREY] * len(guess)
    unmatched = Counter(a for g, a in zip(guess, answer, strict=True) if g != a)
    for i, (g, a) in enumerate(zip(guess, answer, strict=True)):
        if g == a:
            marks[i] = GREEN
        elif unmatched[g] > 0:
            marks[i] = YELLOW
            unmatched[g] -= 1
    return "".join(marks)


def merge_letters(letters: dict[str, str], guess: str, feedback: str) -> dict[str, str]:
    """Keep the best colour seen for every letter (green over yellow over grey)."""
    merged = dict(letters)
    for letter, mark in zip(guess, feedback, strict=True):
        if letter not in merged or _RANK[mark] > _RANK[merged[letter]]:
            merged[letter] = mark
    return merged


def problem_with(guess: str) -> str | None:
    """Why ``guess`` cannot be played (None when it can)."""
    if len(guess) != WORD_LENGTH:
        return f"{guess!r} has {len(guess)} letters; guess a {WORD_LENGTH}-letter word"
    if not guess.isascii() or not guess.isalpha():
        return f"{guess!r} must be letters a to z only"
    if guess not in allowed_words():
        return f"{guess!r} is not in the word list; try another word"
    return None
