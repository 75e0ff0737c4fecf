"""Env steps per second seen by TRL's GRPO loop, against the bare client on the same server.

    python bench/bench_trl.py                        # Wordle served here, 6 optimizer steps
    python bench/bench_trl.py --max-steps 20 --prompts-per-step 8 --base-url URL

Runs ``examples/trl_wordle.py`` (the tiny model, CPU) and prints what its loop saw: env steps
(tool calls that reached the server) and resets per second of training, and the share of the
training time spent waiting for the server. Then one bare client plays Wordle on the same
server with sync calls for comparison: the env's own speed, which the TRL loop does not come
near, since generating the tool calls costs far more than answering them.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the tiny model needs no Hub
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import trl_wordle
from trl_common import env_server
from wordle_env import WordleAction, WordleEnv


def bare_client(url: str, seconds: float) -> float:
    """Steps per second of one sync client playing random words (a reset when a game ends)."""
    words = trl_wordle.words()
    rng = random.Random(0)
    env = WordleEnv(base_url=url)
    try:
        env.reset(seed=0)
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            result = env.step(WordleAction(guess=rng.choice(words)))
            steps += 1
            if result.done:
                env.reset(seed=steps)
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base-url", help="a running Wordle server; default: serve one here")
    p.add_argument("--max-steps", type=int, default=6)
    p.add_argument("--prompts-per-step", type=int, default=4)
    p.add_argument("--seconds", type=float, default=3.0, help="bare client's run")
    args = p.parse_args()
    with (
        tempfile.TemporaryDirectory() as out,
        env_server(args.base_url, trl_wordle.make_app) as url,
    ):
        run = trl_wordle.main(
            [
                f"--base-url={url}",
                f"--max-steps={args.max_steps}",
                f"--prompts-per-step={args.prompts_per_step}",
                f"--output-dir={out}",
            ]
        )
        bare = bare_client(url, args.seconds)
    seconds = run["train_seconds"]
    print(f"cpus: {os.cpu_count()}")
    print(
        f"TRL loop: {run['optimizer_steps']} optimizer steps in {seconds:.1f}s, "
        f"{run['sessions']} sessions (rollouts per step), {run['env_resets']} resets, "
        f"{run['env_steps']} env steps"
    )
    print(f"TRL loop: {run['env_steps'] / seconds:.1f} env steps/s, ", end="")
    print(f"{run['env_resets'] / seconds:.1f} resets/s, ", end="")
    print(f"{100 * run['env_seconds'] / seconds:.1f}% of the time waiting for the server")
    print(f"bare client: {bare:.0f} env steps/s (one session, sync calls)")


if __name__ == "__main__":
    main()
