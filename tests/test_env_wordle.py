"""Wordle over the wire: coloured feedback, a found word wins, invalid guesses cost no turn."""

from __future__ import annotations

import pytest
from wordle_env import WordleAction, WordleEnv

from openenv.core import ClientError
from tests.conftest import env_fixtures

url, env = env_fixtures("wordle_env.server.app:app", WordleEnv)


def guess(env, word: str):
    return env.step(WordleAction(guess=word))


def test_finding_the_word_wins_and_reveals_it(env):
    first = env.reset(seed=0, word="crane").observation
    assert first.remaining_guesses == 6 and first.answer is None
    miss = guess(env, "slate")
    assert miss.observation.feedback == ["XXGXG"]
    assert miss.reward == 0 and not miss.done and miss.observation.answer is None
    hit = guess(env, " CRANE ")
    assert hit.done and hit.reward == pytest.approx(1.0)
    assert hit.observation.won and hit.observation.answer == "crane"
    assert hit.observation.guesses == ["slate", "crane"]
    assert hit.observation.feedback[-1] == "GGGGG"
    assert hit.observation.letters["c"] == "G" and hit.observation.letters["s"] == "X"


def test_repeated_letters_are_coloured_only_as_often_as_they_occur(env):
    env.reset(seed=0, word="these")
    assert guess(env, "geese").observation.feedback == ["XXGGG"]


@pytest.mark.parametrize(
    ("word", "reason"),
    [("abc", "has 3 letters"), ("zzzzz", "not in the word list"), ("ab1de", "letters a to z")],
)
def test_an_invalid_guess_is_refused_with_a_reason_and_costs_no_turn(env, word, reason):
    env.reset(seed=0, word="crane")
    guess(env, "slate")
    before = env.state()
    with pytest.raises(ClientError) as refused:
        guess(env, word)
    assert refused.value.server_code == "VALIDATION_ERROR"
    assert reason in refused.value.message
    assert env.state() == before
    assert guess(env, "pious").observation.remaining_guesses == 4


def test_a_repeated_guess_is_refused(env):
    env.reset(seed=0, word="crane")
    guess(env, "slate")
    with pytest.raises(ClientError, match="already guessed"):
        guess(env, "slate")


def test_six_misses_lose_and_reveal_the_answer(env):
    env.reset(seed=0, word="crane")
    results = [guess(env, w) for w in ("slate", "pious", "pizza", "adieu", "these", "geese")]
    assert [r.done for r in results] == [False] * 5 + [True]
    last = results[-1].observation
    assert not last.won and last.answer == "crane" and last.remaining_guesses == 0
    assert results[-1].reward == 0


def test_illegal_move_end_option_ends_with_a_penalty(env):
    env.reset(seed=0, word="crane", illegal_move="end")
    result = guess(env, "qq")
    assert result.done and result.reward == pytest.approx(-1.0)
    assert "has 2 letters" in result.observation.metadata["illegal_move"]


def test_the_same_seed_hides_the_same_word(env):
    def answer(seed: int) -> str:
        env.reset(seed=seed, max_guesses=1)
        return guess(env, "crane").observation.answer

    words = [answer(s) for s in range(4)]
    assert words == [answer(s) for s in range(4)]
    assert len(set(words)) > 1
    assert all(len(w) == 5 and w.isalpha() for w in words)


def test_a_hidden_word_outside_the_list_is_refused(env):
    with pytest.raises(ClientError, match="shipped list"):
        env.reset(word="qwxyz")
