"""Train a model to play Wordle with TRL's GRPOTrainer against an OpenEnv Wordle server.

    python examples/trl_wordle.py                              # tiny model, env served here
    python examples/trl_wordle.py --base-url http://localhost:8000 --max-steps 50
    python examples/trl_wordle.py --model Qwen/Qwen3-0.6B --base-url URL --max-steps 500

The environment owns the reward: every rollout plays one episode on its own WebSocket session
(the model calls the ``guess`` tool; the server colours each guess) and ``get_reward`` returns
what the server gave: 1.0 for finding the word, -1.0 for a guess the game refuses (episodes are
reset with ``illegal_move="end"``), 0.0 otherwise. Each dataset row carries a ``seed`` that TRL
passes to ``reset``, so the rollouts of one group play the same hidden word. See
``trl_common.py`` for the options and the tiny default model.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from trl_common import Calls, Demo, Sessions, env_server, parse_args, report, tool_call, train
from wordle_env import WordleAction, WordleEnv

PROMPT = (
    "Let's play Wordle. Find the hidden five-letter English word in six guesses. After each "
    "guess every letter is coloured: G right letter in the right place, Y in the word but "
    "elsewhere, X not in the word. Call the tool `guess` with one word at a time."
)


class WordleGame:
    """One Wordle session for one rollout: ``reset``, the ``guess`` tool, ``get_reward``."""

    def __init__(self, base_url: str) -> None:
        self.client = WordleEnv(base_url=base_url)
        self.calls = Calls()
        self.reward = 0.0
        self.done = False

    def reset(self, seed: int | None = None, **_: Any) -> str:
        with self.calls.timed():
            result = self.client.reset(seed=seed, illegal_move="end")
        self.calls.resets += 1
        self.reward, self.done = 0.0, result.done
        return "\n\n" + result.observation.message

    def guess(self, word: str) -> str:
        """Guess the hidden word.

        Args:
            word: A five-letter English word.

        Returns:
            The guess coloured letter by letter (G, Y or X) and the guesses left.
        """
        if self.done:
            raise ValueError("the game is over: no more guesses")
        with self.calls.timed():
            result = self.client.step(WordleAction(guess=word))
        self.calls.steps += 1
        self.reward += result.reward or 0.0
        self.done = result.done
        return result.observation.message

    def get_reward(self) -> float:
        """The sum of the rewards the server gave in this episode."""
        return self.reward


def words() -> list[str]:
    """Wordle's word list (the server's own; the tiny model's warm-up guesses come from it)."""
    from wordle_env.server.words import answer_words

    return list(answer_words())


def demos() -> list[Demo]:
    """Warm-up conversations: the prompt, then a guess; some after a first guess's feedback."""
    rng = random.Random(0)
    pool = words()
    out = []
    for _ in range(48):
        first, second = rng.sample(pool, 2)
        start = [{"role": "user", "content": PROMPT + "\n\nGuess the 5-letter word in 6 tries."}]
        out.append(Demo([*start, tool_call("guess", word=first)]))
        feedback = {"role": "tool", "name": "guess", "content": f"{first.upper()}: XXYXG. 5 left."}
        out.append(
            Demo(
                [*start, tool_call("guess", word=first), feedback, tool_call("guess", word=second)]
            )
        )
    return out


def make_app() -> Any:
    from wordle_env.server.environment import WordleEnvironment

    from openenv.server import create_app

    return create_app(WordleEnvironment, enable_web=False)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(__doc__.splitlines()[0], argv)
    rows = [{"prompt": [{"role": "user", "content": PROMPT}], "seed": i} for i in range(256)]
    with env_server(args.base_url, make_app) as url:
        sessions = Sessions(WordleGame, url)
        try:
            trainer = train(args, sessions, rows, [WordleGame.guess], demos, corpus=words())
        finally:
            sessions.close()
        return report(trainer, sessions)


if __name__ == "__main__":
    main()
