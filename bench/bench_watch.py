"""What watching costs the watched session: a client's Pong steps per second over /ws with 0
and with 4 watchers, in the same run.

Run: ``python bench/bench_watch.py [--rounds 6] [--seconds 4]``

One Atari (Pong) server on loopback. A typed client steps as fast as it can; each round lasts
``--seconds`` and alternates between no watcher and four, each watcher asking for the session's
view as the watch page does (every 300 ms, the drawing shared, redrawn at most every 250 ms).
Prints steps/s per round and the median of each setting, and their ratio. ``--target health``
sends the watchers' requests to ``/health`` instead: what four polling clients cost on this
machine whatever they ask (on 2 cores their process competes with the client and the server).
Asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import serve  # noqa: E402

POLL_S = 0.3


# The watchers run in a process of their own (threads here would take the stepping client's
# GIL): each asks for the view every POLL_S, as the page does, until stdin closes.
WATCHERS = """
import sys, threading, httpx
url, session_id, count, poll = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
health = sys.argv[5] == "health"
stop, fetched = threading.Event(), []
def watch():
    version = -1
    with httpx.Client(base_url=url) as http:
        while not stop.is_set():
            if health:  # the floor: as many requests, to a route that does nothing
                http.get("/health")
            else:
                answer = http.get(f"/web/watch/{session_id}/view", params={"seen": version})
                version = answer.json()["version"]
            fetched.append(1)
            stop.wait(poll)
threads = [threading.Thread(target=watch) for _ in range(count)]
for t in threads: t.start()
print("ready", flush=True)
sys.stdin.read()
stop.set()
for t in threads: t.join()
print(len(fetched), flush=True)
"""


def start_watchers(url: str, session_id: str, count: int, target: str) -> subprocess.Popen:
    watchers = subprocess.Popen(
        [sys.executable, "-c", WATCHERS, url, session_id, str(count), str(POLL_S), target],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert watchers.stdout is not None and watchers.stdout.readline().strip() == "ready"
    return watchers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument(
        "--target", choices=("view", "health"), default="view",
        help="what the watchers ask for: the session's view, or /health (the floor: the same "
        "requests costing the server nothing)",
    )  # fmt: skip
    args = parser.parse_args()
    from atari_env import AtariAction, AtariEnv

    rates: dict[int, list[float]] = {0: [], 4: []}
    with serve("atari_env.server.app:app") as url, AtariEnv(base_url=url).sync() as env:
        env.reset(seed=0)
        with httpx.Client(base_url=url) as http:
            (session,) = [s for s in http.get("/web/watch/sessions").json() if s["kind"] == "ws"]
        for round_ in range(args.rounds):
            watchers = 4 if round_ % 2 else 0
            process = (
                start_watchers(url, session["id"], watchers, args.target) if watchers else None
            )
            steps, started = 0, time.perf_counter()
            while time.perf_counter() - started < args.seconds:
                if env.step(AtariAction(action_id=steps % 3)).done:
                    env.reset(seed=steps)
                steps += 1
            rate = steps / (time.perf_counter() - started)
            extra = ""
            if process is not None:
                fetched, _ = process.communicate("")
                extra = f", {fetched.strip()} views fetched"
            rates[watchers].append(rate)
            print(f"round {round_ + 1}: {watchers} watchers: {rate:,.0f} steps/s{extra}")
    quiet, watched = statistics.median(rates[0]), statistics.median(rates[4])
    print(f"median steps/s: 0 watchers {quiet:,.0f}, 4 watchers {watched:,.0f} "
          f"(ratio {watched / quiet:.3f})")  # fmt: skip


if __name__ == "__main__":
    main()
