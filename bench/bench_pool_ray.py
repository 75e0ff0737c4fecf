"""EnvPool on Ray against local processes, in one run: the same grid-world servers, the same
client, the same cores.

    python bench/bench_pool_ray.py [--sizes 256 1024] [--servers 4] [--seconds 5]

Starts a two-node Ray cluster on this machine (``ray.cluster_utils.Cluster``), then for each
pool size steps all members together for ``--seconds`` (after a warm-up), resetting members
whose episode ended: first with ``--servers`` local server processes, then with as many Ray
actors spread over the two nodes (each a server process on its node, reached directly).
Prints aggregate env steps/s and the p50/p99 time of one batched step, the ratio Ray/local
(goal: within 15 % on the same cores: the point is that Ray then scales with nodes), and the
time to launch a Ray pool of the largest size (servers started and every session reset once).
Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MOVES = ["UP", "DOWN", "LEFT", "RIGHT"]
SERVER_ENV = {"ENABLE_WEB_INTERFACE": "0", "MAX_CONCURRENT_ENVS": "4096"}


async def measure(pool, seconds: float, rng: random.Random) -> tuple[float, float, float]:
    """Steps/s over all members, and the p50 / p99 ms of one batched step."""
    from grid_world_env import GridWorldAction

    size = len(pool)
    await pool.reset(seed=0)
    steps, took, start = 0, [], 0.0
    warmup_end = time.perf_counter() + min(2.0, seconds / 3)
    while True:
        now = time.perf_counter()
        if not start and now >= warmup_end:
            start, steps, took = now, 0, []
        if start and now - start >= seconds:
            took.sort()
            p99 = took[min(len(took) - 1, int(len(took) * 0.99))]
            return steps / (now - start), statistics.median(took) * 1000, p99 * 1000
        actions = [GridWorldAction(action=rng.choice(MOVES)) for _ in range(size)]
        began = time.perf_counter()
        results = await pool.step(actions)
        took.append(time.perf_counter() - began)
        errors = [r.error for r in results if r.error is not None]
        if errors:
            raise RuntimeError(f"{len(errors)} members failed, first: {errors[0]}")
        steps += size
        finished = [r.index for r in results if r.done]
        if finished:
            await pool.reset(seed=steps, indices=finished)


def run(pool, seconds: float) -> tuple[float, float, float]:
    async def go():
        try:
            return await measure(pool, seconds, random.Random(0))
        finally:
            await pool.close()

    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # a socket per session
    import ray
    from ray.cluster_utils import Cluster

    from openenv.client.pool import EnvPool
    from openenv.runtime.ray_provider import Ray

    node = {"num_cpus": max(1, args.servers // 2), "object_store_memory": 100 * 2**20}
    cluster = Cluster(initialize_head=True, head_node_args=node)
    cluster.add_node(**node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    on_ray = Ray(num_cpus=1, env_vars=SERVER_ENV)
    print(f"grid_world, {args.servers} servers, {os.cpu_count()} CPUs, two Ray nodes; "
          f"{args.seconds:g} s per run")  # fmt: skip
    print(f"{'envs':>6} {'where':>6} {'steps/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
    try:
        for size in args.sizes:
            rates = {}
            for where in ("local", "ray"):
                extra = {"provider": on_ray} if where == "ray" else {"env_vars": SERVER_ENV}
                pool = EnvPool.launch("grid_world", size=size, servers=args.servers, **extra)
                rate, p50, p99 = run(pool, args.seconds)
                rates[where] = rate
                print(f"{size:>6} {where:>6} {rate:>10,.0f} {p50:>8.1f} {p99:>8.1f}", flush=True)
            print(f"{size:>6} {'ratio':>6} {rates['ray'] / rates['local']:>10.2f} (Ray / local)")
        largest = max(args.sizes)
        began = time.perf_counter()
        pool = EnvPool.launch("grid_world", size=largest, servers=args.servers, provider=on_ray)

        async def first_reset():
            try:
                results = await pool.reset(seed=0)
                assert all(r.ok for r in results)
            finally:
                await pool.close()

        asyncio.run(first_reset())
        print(f"launch of a Ray pool of {largest} envs ({args.servers} servers started, every "
              f"session reset): {time.perf_counter() - began:.1f} s")  # fmt: skip
    finally:
        ray.shutdown()
        cluster.shutdown()


if __name__ == "__main__":
    main()
