"""What watching costs: a client's Pong steps per second over /ws with 0 and with 4 watchers,
in the same run, and the server's CPU per frame a watcher receives.

Run: ``python bench/bench_watch.py [--rounds 6] [--seconds 4] [--watchers 4]``

One Atari (Pong) server on loopback. A typed client steps as fast as it can; each round lasts
``--seconds`` and alternates between no watcher and ``--watchers``, each watcher asking for the
session's view as the watch page does (every 300 ms, the drawing shared, redrawn at most every
250 ms). Prints steps/s per round and the median of each setting, and their ratio; and the
server's CPU time per frame delivered to a watcher: the server's CPU in a watched round minus
what its steps cost in the unwatched rounds (CPU per step times the round's steps), divided by
the views that brought a new frame. ``--target health`` sends the watchers' requests to
``/health`` instead: what the polling clients cost on this machine whatever they ask (on 2
cores their process competes with the client and the server), and the server's CPU per poll.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
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
stop, fetched, frames = threading.Event(), [], []
def watch():
    version = -1
    with httpx.Client(base_url=url) as http:
        while not stop.is_set():
            if health:  # the floor: as many requests, to a route that does nothing
                http.get("/health")
            else:
                answer = http.get(f"/web/watch/{session_id}/view", params={"seen": version})
                view = answer.json()
                version = view["version"]
                if "<img" in view.get("html", ""):
                    frames.append(1)  # a new frame drawn for this watcher
            fetched.append(1)
            stop.wait(poll)
threads = [threading.Thread(target=watch) for _ in range(count)]
for t in threads: t.start()
print("ready", flush=True)
sys.stdin.read()
stop.set()
for t in threads: t.join()
print(len(fetched), len(frames), flush=True)
"""


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pid() -> int:
    """The one child process of this one: the server ``serve`` started."""
    (pid,) = {
        int(child)
        for task in Path(f"/proc/{os.getpid()}/task").iterdir()
        for child in (task / "children").read_text().split()
    }
    return pid


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
    parser.add_argument("--watchers", type=int, default=4, help="watchers in a watched round")
    parser.add_argument(
        "--target", choices=("view", "health"), default="view",
        help="what the watchers ask for: the session's view, or /health (the floor: the same "
        "requests costing the server nothing)",
    )  # fmt: skip
    args = parser.parse_args()
    from atari_env import AtariAction, AtariEnv

    count = args.watchers
    rates: dict[int, list[float]] = {0: [], count: []}
    quiet_cpu: list[tuple[float, int]] = []  # (server CPU s, steps) of each unwatched round
    watched: list[tuple[float, int, int]] = []  # (server CPU s, steps, frames delivered)
    with serve("atari_env.server.app:app") as url, AtariEnv(base_url=url).sync() as env:
        server = server_pid()
        env.reset(seed=0)
        with httpx.Client(base_url=url) as http:
            (session,) = [s for s in http.get("/web/watch/sessions").json() if s["kind"] == "ws"]
        for round_ in range(args.rounds):
            watchers = count if round_ % 2 else 0
            process = (
                start_watchers(url, session["id"], watchers, args.target) if watchers else None
            )
            steps, started, cpu0 = 0, time.perf_counter(), cpu_s(server)
            while time.perf_counter() - started < args.seconds:
                if env.step(AtariAction(action_id=steps % 3)).done:
                    env.reset(seed=steps)
                steps += 1
            rate = steps / (time.perf_counter() - started)
            extra = ""
            if process is not None:
                out, _ = process.communicate("")
                fetched, frames = (int(n) for n in out.split())
                used = cpu_s(server) - cpu0  # the last requests answered before communicate
                watched.append((used, steps, frames if args.target == "view" else fetched))
                extra = f", {fetched} views fetched, {frames} with a new frame"
            else:
                quiet_cpu.append((cpu_s(server) - cpu0, steps))
            rates[watchers].append(rate)
            print(f"round {round_ + 1}: {watchers} watchers: {rate:,.0f} steps/s{extra}")
    quiet, looked = statistics.median(rates[0]), statistics.median(rates[count])
    print(f"median steps/s: 0 watchers {quiet:,.0f}, {count} watchers {looked:,.0f} "
          f"(ratio {looked / quiet:.3f})")  # fmt: skip
    if quiet_cpu and watched:
        per_step = sum(c for c, _ in quiet_cpu) / max(sum(n for _, n in quiet_cpu), 1)
        per_frame = [
            1000 * (used - steps * per_step) / frames for used, steps, frames in watched if frames
        ]
        what = "frame delivered to a watcher" if args.target == "view" else "/health poll"
        print(f"server CPU per step unwatched: {1000 * per_step:.3f} ms; per {what}: "
              f"median {statistics.median(per_frame):.2f} ms "
              f"(rounds: {', '.join(f'{ms:.2f}' for ms in per_frame)})")  # fmt: skip


if __name__ == "__main__":
    main()
