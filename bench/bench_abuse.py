"""A visitor's latency while another client asks for the most expensive steps it can.

Run: ``python bench/bench_abuse.py [--steps 300] [--abusers 8]``

One Atari server (``atari_env``, as ``openenv serve`` runs it) behind a stand-in proxy
(``OPENENV_TRUSTED_PROXIES=1``; each client sends its own ``X-Forwarded-For``). The abuser opens
``--abusers`` sessions from one address and plays the attack that used to freeze a server: in
each session, steps that are cheap (``frameskip`` 1) for a while, then a reset with the largest
``frameskip`` the schema allows (32 frames a step) and steps as fast as it can, over and over.
The visitor plays Pong with the default frameskip from another address and asks ``/health``
every fifth step (one HTTP connection, kept alive, as a load balancer's probe). Printed for
both runs (without, then with the abuser): the visitor's step latency and ``GET /health``
latency, p50 / p99 / max, in milliseconds.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atari_env import AtariAction, AtariEnv  # noqa: E402

from tests.conftest import serve  # noqa: E402

MAX_FRAMESKIP = 32


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"p50 {statistics.median(ms):7.2f}  p99 {p99:7.2f}  max {ms[-1]:7.2f}"


def visitor(base: str, steps: int) -> tuple[list[float], list[float]]:
    step_s, health_s = [], []
    visitor_address = {"X-Forwarded-For": "198.51.100.2"}
    with (
        AtariEnv(base_url=base, headers=visitor_address).sync() as env,
        httpx.Client(base_url=base, timeout=30) as probe,
    ):
        env.reset(seed=0)
        for n in range(steps):
            started = time.perf_counter()
            result = env.step(AtariAction(action_id=n % 3))
            step_s.append(time.perf_counter() - started)
            if result.done:
                env.reset(seed=n)
            if n % 5 == 0:
                started = time.perf_counter()
                probe.get("/health").raise_for_status()
                health_s.append(time.perf_counter() - started)
    return step_s, health_s


def abuser(base: str, stop: threading.Event, count: list[int]) -> None:
    with AtariEnv(base_url=base, headers={"X-Forwarded-For": "203.0.113.7"}).sync() as env:
        while not stop.is_set():
            env.reset(seed=1, frameskip=1)  # cheap steps: a scheduler may learn to trust them
            for _ in range(50):
                env.step(AtariAction(action_id=1))
                count[0] += 1
            env.reset(seed=1, frameskip=MAX_FRAMESKIP)  # then the dearest it may ask for
            for _ in range(200):
                if stop.is_set() or env.step(AtariAction(action_id=1)).done:
                    break
                count[0] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--abusers", type=int, default=8)
    args = parser.parse_args()
    settings = {"OPENENV_TRUSTED_PROXIES": "1", "ENABLE_WEB_INTERFACE": "0"}
    with serve("atari_env.server.app:app", env=settings) as base:
        visitor(base, 30)  # warm up
        alone = visitor(base, args.steps)
        stop, count = threading.Event(), [0]
        threads = [
            threading.Thread(target=abuser, args=(base, stop, count), daemon=True)
            for _ in range(args.abusers)
        ]
        for thread in threads:
            thread.start()
        time.sleep(2)
        started, before = time.perf_counter(), count[0]
        abused = visitor(base, args.steps)
        rate = (count[0] - before) / (time.perf_counter() - started)
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    print(
        f"visitor: Pong, frameskip 4, {args.steps} steps; abuser: {args.abusers} sessions of "
        f"one client, frameskip 1 then {MAX_FRAMESKIP} ({rate:.0f} steps/s while measured)"
    )
    print(f"  step,    alone:        {percentiles(alone[0])} ms")
    print(f"  step,    with abuser:  {percentiles(abused[0])} ms")
    print(f"  /health, alone:        {percentiles(alone[1])} ms")
    print(f"  /health, with abuser:  {percentiles(abused[1])} ms")


if __name__ == "__main__":
    main()
