"""Wordle: find the hidden five-letter word in six guesses.

Actions: ``WordleAction(guess="crane")`` (case and surrounding spaces are ignored). Each
accepted guess is coloured letter by letter: green (right place), yellow (elsewhere in the
word), grey (not in the word). A guess that is not five letters, not in the shipped word list,
or already played is an illegal move (see ``openenv.core.rules``): refused with the reason by
default, and no guess is used up.

Reward: +1.0 for the guess that finds the word, 0.0 for every other guess. The episode ends when
the word is found or the guesses run out; the answer is revealed then.

Reset options: ``word`` (play a chosen hidden word from the list), ``max_guesses`` (1 to 10,
default 6), ``illegal_move``.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from pydantic import Field

from openenv.core import Board, Cell, Environment, InvalidAction
from openenv.core.rules import (
    ILLEGAL_MOVE_PENALTY,
    IllegalMovePolicy,
    check_policy,
    illegal_move,
)
from wordle_env.models import WordleAction, WordleObservation, WordleState
from wordle_env.server.words import (
    GREEN,
    GREY,
    WORD_LENGTH,
    YELLOW,
    allowed_words,
    answer_words,
    merge_letters,
    problem_with,
    score,
)

WIN_REWARD = 1.0
MAX_GUESSES = 10
COLOURS = {GREEN: "#6aaa64", YELLOW: "#c9b458", GREY: "#787c7e"}
# The alphabet in rows of seven under the guesses, each letter in its best known colour.
ALPHABET_ROWS = ("abcdefg", "hijklmn", "opqrstu", "vwxyz")
WIDTH = 7


class WordleEnvironment(Environment[WordleAction, WordleObservation, WordleState]):
    """Wordle; one instance per session."""

    how_to_play = (
        "Guess the five-letter word: type it on the board and press Enter. Green: right "
        "place; yellow: elsewhere in the word; grey: not in it."
    )
    legend = {
        "#6aaa64": "right place",
        "#c9b458": "elsewhere",
        "#787c7e": "not in the word",
    }

    render_fps = 1  # frames per second of its autoplay and videos

    def __init__(self) -> None:
        self._state = WordleState()
        self._answer = ""
        self._letters: dict[str, str] = {}
        self._policy = check_policy("refuse")

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        word: str | None = None,
        max_guesses: Annotated[int, Field(ge=1, le=MAX_GUESSES)] = 6,
        illegal_move: IllegalMovePolicy = "refuse",
    ) -> WordleObservation:
        self._policy = check_policy(illegal_move)
        self._answer = _chosen(word) if word else self.rng.choice(answer_words())
        self._letters = {}
        self._state = WordleState(
            episode_id=episode_id or str(uuid.uuid4()), max_guesses=max_guesses
        )
        return self._observe(f"Guess the {WORD_LENGTH}-letter word in {max_guesses} tries.")

    def step(self, action: WordleAction) -> WordleObservation:
        s = self._state
        guess = action.guess.strip().lower()
        problem = problem_with(guess)
        if problem is None and guess in s.guesses:
            problem = f"{guess!r} was already guessed; try a new word"
        if problem is not None:
            meta = illegal_move(self._policy, problem)
            s.step_count += 1
            return self._observe(problem, ILLEGAL_MOVE_PENALTY, True, meta=meta)
        s.step_count += 1
        feedback = score(guess, self._answer)
        s.guesses = [*s.guesses, guess]
        s.feedback = [*s.feedback, feedback]
        self._letters = merge_letters(self._letters, guess, feedback)
        if guess == self._answer:
            s.won = True
            tries = len(s.guesses)
            return self._observe(f"Found it in {tries}!", WIN_REWARD, True)
        if len(s.guesses) >= s.max_guesses:
            return self._observe(f"Out of guesses: the word was {self._answer!r}.", 0.0, True)
        left = s.max_guesses - len(s.guesses)
        return self._observe(f"{guess.upper()}: {feedback}. {left} left.", 0.0)

    @property
    def state(self) -> WordleState:
        return self._state

    def render(self) -> Board | None:
        s = self._state
        if not self._answer:
            return None
        rows = [_centred(self._guess_row(i)) for i in range(s.max_guesses)]
        rows.append(_centred([]))
        rows += [_centred([self._key(letter) for letter in line]) for line in ALPHABET_ROWS]
        legend = {"green": "right place", "yellow": "elsewhere in the word", "grey": "not in it"}
        left = s.max_guesses - len(s.guesses)
        return Board(rows, legend=legend, caption=f"{left} guesses left; type a word below.")

    # -- internals ------------------------------------------------------------------------

    def _observe(
        self, message: str, reward: float = 0.0, done: bool = False, meta: dict | None = None
    ) -> WordleObservation:
        s = self._state
        return WordleObservation(
            guesses=list(s.guesses),
            feedback=list(s.feedback),
            letters=dict(sorted(self._letters.items())),
            remaining_guesses=s.max_guesses - len(s.guesses),
            won=s.won,
            answer=self._answer if done else None,
            message=message,
            reward=reward,
            done=done,
            metadata=meta or {},
        )

    def _guess_row(self, index: int) -> list[Cell]:
        s = self._state
        if index >= len(s.guesses):
            return [Cell("", background="#ffffff", label="empty") for _ in range(WORD_LENGTH)]
        return [
            Cell(letter.upper(), color="#ffffff", background=COLOURS[mark], label=mark)
            for letter, mark in zip(s.guesses[index], s.feedback[index], strict=True)
        ]

    def _key(self, letter: str) -> Cell:
        mark = self._letters.get(letter)
        if mark is None:
            return Cell(letter.upper(), color="#1e293b", background="#d3d6da", label="unused")
        return Cell(letter.upper(), color="#ffffff", background=COLOURS[mark], label=mark)


def _centred(cells: list[Cell]) -> list[Cell]:
    """Pad a row to WIDTH cells with invisible ones, half on each side."""
    blank = Cell("", background="transparent")
    left = (WIDTH - len(cells)) // 2
    return [blank] * left + cells + [blank] * (WIDTH - len(cells) - left)


def _chosen(word: str) -> str:
    answer = word.strip().lower()
    if answer not in allowed_words():
        raise InvalidAction(f"word {word!r} is not a five-letter word from the shipped list")
    return answer
