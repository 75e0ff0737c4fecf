"""Steps per second one client gets from a grid world server, by way of calling it.

    python bench/bench_client.py                   # serves grid_world in a child process
    python bench/bench_client.py --url http://127.0.0.1:8000 --steps 3000 --rounds 5

Ways: ``.sync()`` (the blocking wrapper), ``plain`` (the client itself from plain code, as
``openenv`` 0.10's client and TRL's examples use it), ``record`` (plain, with
``env.record(path)`` writing every step to a file) and ``await`` (the async client in a loop).
The rounds alternate the ways, so a change in the machine's load hits them all; each figure is
the median over rounds. A checkout without the plain way (before the client answered plain code)
prints ``-`` for it: point two checkouts at one ``--url`` to compare them.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from grid_world_env import GridWorldAction, GridWorldEnv

from openenv.runtime import LocalProcessProvider, app_of_package

MOVES = [GridWorldAction(action=m) for m in ("DOWN", "RIGHT", "UP", "LEFT")]


def run_blocking(env: object, steps: int) -> float:
    env.reset(seed=0)  # type: ignore[attr-defined]
    start = time.perf_counter()
    for i in range(steps):
        result = env.step(MOVES[i % 4])  # type: ignore[attr-defined]
        if result.done:
            env.reset(seed=0)  # type: ignore[attr-defined]
    return steps / (time.perf_counter() - start)


def via_sync(url: str, steps: int) -> float:
    with GridWorldEnv(base_url=url).sync() as env:
        return run_blocking(env, steps)


def via_plain(url: str, steps: int) -> float | None:
    env = GridWorldEnv(base_url=url)
    if not hasattr(env, "_modes"):
        return None  # this checkout's client answers only await and .sync()
    try:
        return run_blocking(env, steps)
    finally:
        env.close()


def via_record(url: str, steps: int) -> float | None:
    env = GridWorldEnv(base_url=url)
    if not hasattr(env, "record"):
        return None
    with tempfile.TemporaryDirectory() as folder:
        try:
            env.record(Path(folder) / "run.jsonl")
            return run_blocking(env, steps)
        finally:
            env.close()


def via_await(url: str, steps: int) -> float:
    async def main() -> float:
        async with GridWorldEnv(base_url=url) as env:
            await env.reset(seed=0)
            start = time.perf_counter()
            for i in range(steps):
                if (await env.step(MOVES[i % 4])).done:
                    await env.reset(seed=0)
            return steps / (time.perf_counter() - start)

    return asyncio.run(main())


def recorder_cost_us(steps: int = 20_000) -> float:
    """What ``Recorder.step`` costs per grid-world step (median of 5), away from the network's
    noise: the step-to-step figures above move by more than it costs on a busy machine."""
    from openenv.client.recorder import Recorder

    action = MOVES[0].model_dump(mode="json")
    payload = {
        "observation": {"x": 1, "y": 0, "message": "Moved DOWN", "metadata": {}},
        "reward": -0.1,
        "done": False,
    }
    runs = []
    with tempfile.TemporaryDirectory() as folder, Recorder(Path(folder) / "r.jsonl") as rec:
        rec.reset({"seed": 0})
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(steps):
                rec.step(action, payload)
            runs.append((time.perf_counter() - start) / steps * 1e6)
    return statistics.median(runs)


WAYS: dict[str, Callable[[str, int], float | None]] = {
    ".sync()": via_sync,
    "plain": via_plain,
    "record": via_record,
    "await": via_await,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="a running grid world server (default: start one)")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    provider = None
    url = args.url
    if url is None:
        provider = LocalProcessProvider(
            app_of_package("grid_world_env"), env_vars={"ENABLE_WEB_INTERFACE": "0"}
        )
        url = provider.start()
        provider.wait_until_healthy(120)
    try:
        figures: dict[str, list[float]] = {way: [] for way in WAYS}
        for _ in range(args.rounds):
            for way, run in WAYS.items():
                value = run(url, args.steps)
                if value is not None:
                    figures[way].append(value)
        print(f"grid world, {args.steps} steps x {args.rounds} rounds (median steps/s)")
        for way, values in figures.items():
            shown = f"{statistics.median(values):8.0f}" if values else "       -"
            print(f"  {way:8s} {shown}")
        if figures["record"]:
            print(f"  recording: {recorder_cost_us():.1f} us per step written (client CPU)")
    finally:
        if provider is not None:
            provider.stop()


if __name__ == "__main__":
    main()
