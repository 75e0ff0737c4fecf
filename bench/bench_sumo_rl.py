"""How long a SUMO traffic-signal step takes, and what a session costs in memory.

Prints figures; asserts nothing. Reproduce with::

    python bench/bench_sumo_rl.py               # 720 steps (one simulated hour) per network
    python bench/bench_sumo_rl.py --steps 200   # shorter
    python bench/bench_sumo_rl.py --sessions 10 # memory of 10 sessions side by side
    python bench/bench_sumo_rl.py --memory-only # only that

Each run resets with a seed and steps random legal actions (the playground's autoplay) with
``delta_time=5``; the figures are milliseconds per ``step`` (median, 99th percentile, max) and
per ``render`` (the SVG), in-process, without the wire. ``direct`` is the same loop with
sumo-rl asking SUMO for every value (``subscribed=False``), for comparison. Memory: the RSS and
PSS of each session's SUMO process plus the growth of this process, after a simulated hour.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from sumo_rl_env import SumoAction
from sumo_rl_env.server.environment import SumoEnvironment


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(env: SumoEnvironment, net: str, steps: int, seed: int = 0) -> dict[str, list[float]]:
    rng = random.Random(seed)
    start = time.perf_counter()
    env.reset(seed=seed, net=net, num_seconds=5 * steps + 5)
    times: dict[str, list[float]] = {"reset": [1000 * (time.perf_counter() - start)]}
    times["step"], times["render"] = [], []
    for _ in range(steps):
        choice = rng.choice(env.legal_actions())
        start = time.perf_counter()
        env.step(SumoAction(**choice.action))
        times["step"].append(1000 * (time.perf_counter() - start))
        start = time.perf_counter()
        env.render()
        times["render"].append(1000 * (time.perf_counter() - start))
    return times


def report(label: str, times: dict[str, list[float]]) -> None:
    step, render = times["step"], times["render"]
    print(
        f"{label:34s} step median {statistics.median(step):6.2f} ms  p99 "
        f"{percentile(step, 0.99):6.2f}  max {max(step):6.2f}   render median "
        f"{statistics.median(render):5.2f} ms   reset {times['reset'][0]:5.0f} ms"
    )


def rss_mb(pid: int, field: str = "Rss:") -> float:
    """A process's resident memory; ``Pss:`` counts pages shared with others (the SUMO
    binary's libraries) as a share, which is what one more session really adds."""
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return 0.0


def memory(sessions: int, net: str) -> None:
    warm = SumoEnvironment()  # the first session loads sumo-rl, pandas, the network: not counted
    run(warm, net, 1)
    warm.close()
    before = rss_mb(os.getpid())
    envs = [SumoEnvironment() for _ in range(sessions)]
    for i, env in enumerate(envs):
        run(env, net, 720, seed=i)
    pids = [env._sim._process.pid for env in envs]
    rss = [rss_mb(pid) for pid in pids]
    pss = [rss_mb(pid, "Pss:") for pid in pids]
    grown = rss_mb(os.getpid()) - before
    print(
        f"{sessions} sessions on {net}: SUMO processes RSS {statistics.mean(rss):.1f} MB, "
        f"PSS {statistics.mean(pss):.1f} MB each; this process grew {grown:.1f} MB "
        f"-> {(sum(pss) + grown) / sessions:.1f} MB per session (PSS)"
    )
    for env in envs:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=720)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--memory-only", action="store_true", help="skip the step timings")
    args = parser.parse_args()
    for net in () if args.memory_only else ("single-intersection", "grid2x2"):
        for label, subscribed in (("subscriptions", True), ("direct", False)):
            env = SumoEnvironment(subscribed=subscribed)
            report(f"{net} ({label})", run(env, net, args.steps))
            env.close()
    memory(args.sessions, "single-intersection")
    memory(args.sessions, "grid2x2")


if __name__ == "__main__":
    main()
