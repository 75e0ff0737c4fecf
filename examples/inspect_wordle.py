"""Evaluate a model at Wordle with Inspect AI: each sample plays one episode on an OpenEnv server.

    inspect eval examples/inspect_wordle.py --model openai/gpt-4o-mini     # Wordle served here
    inspect eval examples/inspect_wordle.py --model MODEL -T base_url=http://localhost:8000 \\
        -T episodes=20
    python examples/inspect_wordle.py                 # offline: a scripted player, no model API
    inspect view                                      # the logs, one conversation per episode

Every sample is one episode on a session of its own, reset with the sample's seed (the hidden
word is the same for every model evaluated). The model guesses with the ``step`` tool, made
from ``WordleAction``'s schema, and reads the server's colours; a word the game refuses comes
back as a tool error. The score is the reward the server gave: 1.0 for finding the word.

Inspect's mock model (``--model mockllm/model``) also runs it, but its default answer is counted
with ``tiktoken``, which downloads its encoding the first time; offline, run this file with
Python: its scripted player answers as the mock model (``custom_outputs``).
"""

from __future__ import annotations

import argparse
import atexit
import functools
import json
from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from wordle_env import WordleEnv

from openenv.integrations.inspect import openenv_agent, openenv_reward

PROMPT = (
    "Let's play Wordle. Find the hidden five-letter English word in six guesses. After each "
    "guess every letter is coloured: G right letter in the right place, Y in the word but "
    "elsewhere, X not in the word. Call the tool `step` with one guess at a time."
)
MOCK_MODEL = "mockllm/model"


@task
def wordle(base_url: str | None = None, episodes: int = 5, first_seed: int = 0) -> Task:
    """``episodes`` games of Wordle, seeds ``first_seed``, ``first_seed + 1``, ...; without
    ``base_url`` a Wordle server is started here for the run."""
    url = base_url or local_server("wordle_env.server.app:app")
    seeds = range(first_seed, first_seed + episodes)
    return Task(
        dataset=[Sample(id=f"seed-{s}", input=PROMPT, metadata={"seed": s}) for s in seeds],
        solver=openenv_agent(lambda: WordleEnv(base_url=url), max_turns=12),
        scorer=openenv_reward(),
    )


@functools.cache
def local_server(app: str) -> str:
    """Serve ``app`` from a child process (API only) until this process exits; its URL."""
    from openenv.runtime.process import LocalProcessProvider

    provider = LocalProcessProvider(app, env_vars={"ENABLE_WEB_INTERFACE": "false"})
    url = provider.start()
    atexit.register(provider.stop)
    provider.wait_until_healthy()
    return url


def scripted_player(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    """A stand-in model: guesses the first word of Wordle's list that fits every colour seen."""
    from wordle_env.server.words import answer_words, score

    seen = [json.loads(m.text) for m in messages if m.role == "tool" and not m.error]
    last = seen[-1] if seen else {}
    pairs = list(zip(last.get("guesses", []), last.get("feedback", []), strict=True))
    fits = [w for w in answer_words() if all(score(g, w) == f for g, f in pairs)]
    if last.get("done") or not fits:
        output = ModelOutput.from_content(MOCK_MODEL, "I am done.")
    else:
        output = ModelOutput.for_tool_call(MOCK_MODEL, "step", {"guess": fits[0]})
    # Usage given: the mock model would otherwise count tokens with tiktoken (a download).
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="a running Wordle server; default: start one here")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--log-dir", default="logs", help="where Inspect writes the log")
    args = parser.parse_args(argv)
    model = get_model(MOCK_MODEL, custom_outputs=scripted_player)
    task_ = wordle(base_url=args.base_url, episodes=args.episodes)
    [log] = inspect_eval(task_, model=model, log_dir=args.log_dir, display="none")
    for sample in log.samples or []:
        print(f"{sample.id}: score {sample.scores['openenv_reward'].value}")
    print(f"log: {log.location} (inspect view --log-dir {args.log_dir})")
    return 0 if log.status == "success" else 1


if __name__ == "__main__":
    raise SystemExit(main())
