"""Steps per second of an EnvPool of grid worlds, by pool size, on one server and on several.

    python bench/bench_pool.py                       # sizes 1..32, 1 server and 4 servers
    python bench/bench_pool.py --servers 1 2 --seconds 3 --sizes 1 4 16

Each configuration starts its servers once (local processes, API only), then for every pool size
steps all members together for ``--seconds`` (after a warm-up), resetting members whose episode
ended. Throughput grows with the pool size while the client and the servers have idle time to
overlap, and flattens once the machine's cores are saturated (see ``os.cpu_count()`` printed).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time

from grid_world_env import GridWorldAction, GridWorldEnv

from openenv.client.pool import EnvPool
from openenv.runtime import LocalProcessProvider, app_of_package

MOVES = ["UP", "DOWN", "LEFT", "RIGHT"]


async def measure(urls: list[str], size: int, seconds: float, rng: random.Random) -> float:
    """Batched steps per second (steps of all members counted) for one pool size."""
    async with EnvPool.connect(GridWorldEnv, urls, size) as pool:
        await pool.reset(seed=0)
        steps, start, warmup_end = 0, 0.0, time.perf_counter() + min(1.0, seconds / 3)
        while True:
            now = time.perf_counter()
            if not start and now >= warmup_end:
                start, steps = now, 0
            if start and now - start >= seconds:
                return steps / (now - start)
            actions = [GridWorldAction(action=rng.choice(MOVES)) for _ in range(size)]
            results = await pool.step(actions)
            errors = [r.error for r in results if r.error is not None]
            if errors:
                raise RuntimeError(f"{len(errors)} members failed, first: {errors[0]}")
            steps += size
            finished = [r.index for r in results if r.done]
            if finished:
                await pool.reset(seed=steps, indices=finished)


def start_servers(count: int) -> list[LocalProcessProvider]:
    providers = [
        LocalProcessProvider(
            app_of_package("grid_world_env"), env_vars={"ENABLE_WEB_INTERFACE": "0"}
        )
        for _ in range(count)
    ]
    for provider in providers:
        provider.start()
    for provider in providers:
        provider.wait_until_healthy()
    return providers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    parser.add_argument("--servers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--seconds", type=float, default=3.0, help="measured time per size")
    args = parser.parse_args()
    rng = random.Random(0)
    print(f"EnvPool over grid_world servers; {os.cpu_count()} CPUs; {args.seconds:g} s per size")
    for count in args.servers:
        providers = start_servers(count)
        try:
            urls = [p.base_url for p in providers]
            print(f"\n{count} server(s)\n{'pool size':>10} {'steps/s':>10} {'per env':>10}")
            for size in args.sizes:
                rate = asyncio.run(measure(urls, size, args.seconds, rng))
                print(f"{size:>10} {rate:>10.0f} {rate / size:>10.0f}", flush=True)
        finally:
            for provider in providers:
                provider.stop()


if __name__ == "__main__":
    main()
