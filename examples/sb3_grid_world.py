"""Train Stable-Baselines3's PPO on the grid world over /ws, then evaluate it.

    python examples/sb3_grid_world.py                            # starts a grid world server
    python examples/sb3_grid_world.py --base-url http://localhost:8000 --timesteps 8192

Each of ``--sessions`` Gymnasium envs is one WebSocket session on the server
(:class:`openenv.integrations.gymnasium.GymEnv`); SB3 steps them together. The grid world has
no step limit, so the wrapper truncates episodes after ``MAX_STEPS``. The evaluation walks the
trained policy greedily and prints how many episodes reached the goal, and in how many steps
(the shortest path is 8).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence

import torch
from grid_world_env import GridWorldEnv
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv

from openenv.integrations.gymnasium import GymEnv

MAX_STEPS = 30  # a random walk needs ~50 steps to the goal; the shortest path is 8


def make_env(base_url: str) -> GymEnv:
    """One session on the grid world server as a ``gymnasium.Env``."""
    return GymEnv.from_url(base_url, GridWorldEnv, max_episode_steps=MAX_STEPS)


def train(base_url: str, *, seed: int = 0, timesteps: int = 4096, sessions: int = 4) -> PPO:
    """PPO on ``sessions`` grid worlds stepped together (one policy call for all of them)."""
    venv = DummyVecEnv([lambda: make_env(base_url)] * sessions)
    venv.seed(seed)
    model = PPO(
        "MlpPolicy",
        venv,
        n_steps=64,
        batch_size=64,
        n_epochs=4,
        learning_rate=3e-3,
        gamma=0.95,
        seed=seed,
        device="cpu",
    )
    try:
        return model.learn(timesteps)
    finally:
        venv.close()


def evaluate(model: PPO, base_url: str, *, episodes: int = 20, seed: int = 0) -> list[int | None]:
    """Steps to the goal in each greedy episode (``None`` where it was not reached)."""
    lengths: list[int | None] = []
    with make_env(base_url) as env:
        for episode in range(episodes):
            obs, _ = env.reset(seed=seed * 1000 + episode)
            steps, terminated, truncated = 0, False, False
            while not (terminated or truncated):
                action, _ = model.predict(obs, deterministic=True)
                obs, _, terminated, truncated, _ = env.step(action)
                steps += 1
            lengths.append(steps if terminated else None)
    return lengths


@contextlib.contextmanager
def grid_world_server(base_url: str | None) -> Iterator[str]:
    """``base_url``, or a grid world server started in a child process for the block."""
    if base_url:
        yield base_url
        return
    from openenv.runtime import LocalProcessProvider, app_of_package

    provider = LocalProcessProvider(
        app_of_package("grid_world_env"), env_vars={"ENABLE_WEB_INTERFACE": "0"}
    )
    provider.start()
    try:
        provider.wait_until_healthy()
        yield provider.base_url
    finally:
        provider.stop()


def main(argv: Sequence[str] | None = None) -> list[int | None]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="a grid world server (default: start one here)")
    parser.add_argument("--timesteps", type=int, default=4096)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # a 64-unit MLP: one thread is faster than several
    with grid_world_server(args.base_url) as url:
        model = train(url, seed=args.seed, timesteps=args.timesteps, sessions=args.sessions)
        lengths = evaluate(model, url, episodes=args.episodes, seed=args.seed)
    reached = [n for n in lengths if n is not None]
    print(f"reached the goal in {len(reached)}/{len(lengths)} episodes; steps: {lengths}")
    return lengths


if __name__ == "__main__":
    main()
