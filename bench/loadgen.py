"""A load generator that speaks the OpenEnv /ws wire protocol with plain ``websockets``.

It uses neither our client nor the reference's, so the same code measures both servers.
Every session walks the grid world DOWN/UP forever (the episode never ends), one step at a time.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

RESET = json.dumps({"type": "reset", "data": {}})
STEPS = [json.dumps({"type": "step", "data": {"action": a}}) for a in ("DOWN", "UP")]


@dataclass
class LoadResult:
    sessions: int
    steps: int = 0
    all_steps: int = 0  # including the warm-up
    errors: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    cpu_us: float = float("nan")  # server CPU per step, filled in by the caller
    client_cpu_s: float = 0.0  # CPU the load generator itself used (all its processes)

    @property
    def client_cpu_us(self) -> float:
        """Load generator CPU per step: the client must not be what limits the figures."""
        return 1e6 * self.client_cpu_s / max(self.all_steps, 1)

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        """Latency percentile in milliseconds."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    def line(self, label: str) -> str:
        return (
            f"{label:<10} N={self.sessions:<3} {self.steps_per_s:9.0f} steps/s  "
            f"p50 {self.percentile(50):6.2f} ms  p99 {self.percentile(99):6.2f} ms  "
            f"errors {self.errors}"
        )


async def _session(url: str, stop_at: float, warm_until: float, result: LoadResult) -> None:
    async with connect(url, compression=None, max_size=None) as ws:
        await ws.send(RESET)
        if json.loads(await ws.recv()).get("type") != "observation":
            result.errors += 1
            return
        i = 0
        while True:
            t0 = time.perf_counter()
            if t0 >= stop_at:
                return
            await ws.send(STEPS[i & 1])
            reply = await ws.recv()
            t1 = time.perf_counter()
            i += 1
            result.all_steps += 1
            if '"type":"observation"' not in reply.replace(" ", ""):
                result.errors += 1
            elif t0 >= warm_until:
                result.steps += 1
                result.latencies.append(t1 - t0)


async def run_load(ws_url: str, sessions: int, seconds: float, warmup: float = 1.0) -> LoadResult:
    """Open ``sessions`` concurrent sessions and step them for ``seconds`` after ``warmup``."""
    result = LoadResult(sessions=sessions)
    cpu0 = time.process_time()
    start = time.perf_counter()
    warm_until = start + warmup
    stop_at = warm_until + seconds
    outcomes = await asyncio.gather(
        *(_session(ws_url, stop_at, warm_until, result) for _ in range(sessions)),
        return_exceptions=True,
    )
    result.errors += sum(isinstance(o, BaseException) for o in outcomes)
    result.seconds = seconds
    result.client_cpu_s = time.process_time() - cpu0
    return result


def _run_in_process(ws_url: str, sessions: int, seconds: float, warmup: float) -> LoadResult:
    return asyncio.run(run_load(ws_url, sessions, seconds, warmup))


async def run_load_procs(
    ws_url: str, sessions: int, seconds: float, procs: int, warmup: float = 1.0
) -> LoadResult:
    """``run_load`` split over ``procs`` processes (so the client is not the bottleneck)."""
    if procs <= 1 or sessions < procs:
        return await run_load(ws_url, sessions, seconds, warmup)
    loop = asyncio.get_running_loop()
    shares = [sessions // procs + (i < sessions % procs) for i in range(procs)]
    with ProcessPoolExecutor(procs, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = await asyncio.gather(
            *(
                loop.run_in_executor(pool, _run_in_process, ws_url, n, seconds, warmup + 1.0)
                for n in shares
            )
        )
    merged = LoadResult(sessions=sessions, seconds=seconds)
    for part in parts:
        merged.steps += part.steps
        merged.all_steps += part.all_steps
        merged.errors += part.errors
        merged.client_cpu_s += part.client_cpu_s
        merged.latencies.extend(part.latencies)
    return merged


async def open_idle(ws_url: str, count: int, batch: int = 50) -> tuple[list, int]:
    """Open ``count`` sessions (each reset once) and leave them idle; return (sockets, errors)."""
    sockets: list = []
    errors = 0

    async def one() -> None:
        nonlocal errors
        try:
            ws = await connect(ws_url, compression=None, ping_interval=None, open_timeout=60)
            await ws.send(RESET)
            if json.loads(await ws.recv()).get("type") != "observation":
                errors += 1
            sockets.append(ws)
        except (OSError, TimeoutError, ValueError, ConnectionClosed) as exc:
            errors += 1
            if errors <= 3:
                print(f"  idle connect failed: {exc!r}")

    for i in range(0, count, batch):
        await asyncio.gather(*(one() for _ in range(min(batch, count - i))))
    return sockets, errors


async def churn(ws_url: str, cycles: int, parallel: int = 8) -> int:
    """Run ``cycles`` connect/reset/step/close cycles, ``parallel`` at a time; return errors."""
    errors = 0
    todo = iter(range(cycles))

    async def worker() -> None:
        nonlocal errors
        for _ in todo:
            try:
                async with connect(ws_url, compression=None) as ws:
                    await ws.send(RESET)
                    await ws.recv()
                    await ws.send(STEPS[0])
                    if '"observation"' not in await ws.recv():
                        errors += 1
                    await ws.send(json.dumps({"type": "close"}))
            except (OSError, TimeoutError, ValueError, ConnectionClosed) as exc:
                errors += 1
                if errors <= 3:
                    print(f"  churn cycle failed: {exc!r}")

    await asyncio.gather(*(worker() for _ in range(parallel)))
    return errors


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
