"""Where one Pong step over /ws spends its time, segment by segment, on one clock.

Prints figures; asserts nothing. Reproduce with::

    python bench/bench_timeline.py [--steps 2000]

The typed ``AtariEnv`` client (``.sync()``, as users get it) steps Pong against
``bench/timeline_app.py``: the real Atari server plus time stamps. The client stamps its
socket's ``sendall`` and ``recv``; the server stamps a frame's arrival, ``env.step``'s start
and end, and the answer's write. ``time.perf_counter`` is CLOCK_MONOTONIC on Linux, one clock
for both processes, so the differences give, per step: the wire in, the server's framing
before ``env.step``, ``env.step``, the server's answer, the wire out, and the client's own time
from the answer to its next request. Around that run, raw ale-py (4 frames + the RGB screen)
and ``env.step`` are timed in this process, to compare with ``env.step`` in the server.
"""

from __future__ import annotations

import argparse
import bisect
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atari_env import AtariAction, AtariEnv  # noqa: E402
from bench_frames import LocalEnv, RawAle, best_of  # noqa: E402

from tests.conftest import serve  # noqa: E402

clock = time.perf_counter
SEGMENTS = (
    ("wire in", "send", "in"),
    ("server, frame to env.step", "in", "start"),
    ("env.step", "start", "end"),
    ("server, observation to socket", "end", "out"),
    ("wire out", "out", "recv"),
)


class StampedSocket:
    """The client connection's socket, stamping each request sent and each answer read."""

    def __init__(self, sock: Any, stamps: dict[str, list[float]]) -> None:
        self._sock, self._stamps = sock, stamps

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def sendall(self, data: bytes) -> None:
        self._stamps["send"].append(clock())
        self._sock.sendall(data)

    def recv(self, size: int) -> bytes:
        data = self._sock.recv(size)
        self._stamps["recv"].append(clock())
        return data


def in_process_us(batches: int = 10) -> tuple[float, float]:
    """Median µs per step of raw ale-py and of ``AtariEnvironment.step`` in this process, in
    alternating batches of 100 (``bench_frames``' loops, so "raw" means the same there)."""
    raw, local = RawAle(), LocalEnv("rows")
    pairs = [(best_of(raw.step, 1, 100), best_of(local.step, 1, 100)) for _ in range(batches)]
    raw_s, env_s = (statistics.median(column) for column in zip(*pairs, strict=True))
    return raw_s * 1e6, env_s * 1e6


def timeline(url: str, steps: int) -> tuple[dict[str, list[float]], float]:
    """Per-segment durations (µs) of ``steps`` client steps, and their wall time per step."""
    client_stamps: dict[str, list[float]] = {"send": [], "recv": []}
    rng = random.Random(1)
    with AtariEnv(base_url=url).sync() as env:
        env.reset(seed=0)
        for _ in range(300):  # warm-up: the server has settled on running steps inline
            if env.step(AtariAction(action_id=rng.randrange(6))).done:
                env.reset(seed=0)
        connection = env._client._ws
        connection.sock = StampedSocket(connection.sock, client_stamps)
        httpx.get(url + "/_bench/timeline")  # drop the warm-up's stamps
        start = clock()
        for _ in range(steps):
            if env.step(AtariAction(action_id=rng.randrange(6))).done:
                env.reset(seed=0)  # its messages are stamped too, and left out below
        wall = (clock() - start) / steps
        connection.sock = connection.sock._sock
    stamps = {**httpx.get(url + "/_bench/timeline").json(), **client_stamps}
    return segments_of(stamps), wall * 1e6


def segments_of(stamps: dict[str, list[float]]) -> dict[str, list[float]]:
    """Pair each ``env.step`` with the request that asked for it and the answer it sent."""
    segments: dict[str, list[float]] = {name: [] for name, _, _ in SEGMENTS}
    between: list[float] = []
    sends = stamps["send"]
    previous_recv = None
    for start, end in zip(stamps["start"], stamps["end"], strict=True):
        arrived = _last(stamps["in"], start)
        sent = _last(sends, arrived)
        answered = _first(stamps["out"], end)
        received = _first(stamps["recv"], answered)
        moments = {"send": sent, "in": arrived, "start": start, "end": end}
        moments |= {"out": answered, "recv": received}
        for name, first, then in SEGMENTS:
            segments[name].append((moments[then] - moments[first]) * 1e6)
        # The client's own time, from the last answer to this request (a reset between the
        # two steps would be in it: those are left out).
        if previous_recv is not None and _first(sends, previous_recv) == sent:
            between.append((sent - previous_recv) * 1e6)
        previous_recv = received
    segments["client, answer to next request"] = between
    return segments


def _last(values: list[float], moment: float) -> float:
    return values[bisect.bisect_right(values, moment) - 1]


def _first(values: list[float], moment: float) -> float:
    return values[bisect.bisect_left(values, moment)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps timed over /ws")
    options = parser.parse_args()
    raw_before, step_before = in_process_us()
    plain = {"ENABLE_WEB_INTERFACE": "0"}
    with serve("timeline_app:app", env=plain, cwd=ROOT / "bench", timeout=300) as url:
        segments, wall = timeline(url, options.steps)
    raw_after, step_after = in_process_us()
    steps = len(segments["env.step"])
    print(f"# Where a Pong /ws step's time goes ({steps} steps, .sync(), rows encoding)\n")
    print(f"{'segment':34} {'median µs':>10} {'p90 µs':>8}")
    total = 0.0
    for name, values in segments.items():
        ordered = sorted(values)
        median = statistics.median(ordered)
        total += median
        print(f"{name:34} {median:10.0f} {ordered[int(0.9 * (len(ordered) - 1))]:8.0f}")
    print(f"{'sum of the medians':34} {total:10.0f}")
    print(f"{'wall time per step':34} {wall:10.0f}   ({1e6 / wall:,.0f} steps/s)")
    print(
        f"\nin this process, before / after: raw ale-py {raw_before:.0f} / {raw_after:.0f} µs, "
        f"env.step {step_before:.0f} / {step_after:.0f} µs"
    )
    raw = (raw_before + raw_after) / 2
    print(f"ratio to raw ale-py: {raw / wall:.2f}x (target 0.5x)")


if __name__ == "__main__":
    main()
