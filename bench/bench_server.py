"""Benchmark our grid world server against the same env served by ``openenv==0.10.0``.

Prints figures; asserts nothing. Reproduce with::

    python bench/bench_server.py              # throughput N=1 and N=64, idle 1,000, churn 10,000
    python bench/bench_server.py --quick      # shorter runs

The reference runs from the cached virtualenv of the compat tests (created on first use).
Both servers run under uvicorn with the same loop and HTTP options; ours runs the way
``openenv serve``, ``python app.py`` and a Space run it (``openenv.cli.serve.run``: the lean
WebSocket protocol of ``openenv.server.lean_ws``, no per-message deflate), the reference with
uvicorn's defaults (``--ws`` sets one implementation for both). The load generator
(bench/loadgen.py) speaks the wire protocol with ``websockets`` in this process: its sans-I/O
protocol on a bare transport (``--client lean``, the default, the cheapest client) or its asyncio
client with its defaults, every answer parsed (``--client plain``, what a user writes). Servers
run pinned to CPU 0 and the load generator to CPU 1 (``--no-pin`` lets them float: then a
server that hops to a worker thread every step, as the reference does, pays for its GIL handoffs
across the two CPUs, and the ratio is flattered). The idle
figures also show a bare ASGI app (bench/bare_ws_app.py) under uvicorn's defaults: stock
uvicorn's own cost per connection.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import loadgen

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "compat"))
from refvenv import ensure_ref_venv  # noqa: E402

OPENENV_SERVE_WS = [
    "--ws",
    "openenv.server.lean_ws:LeanWebSocketProtocol",
    "--ws-per-message-deflate",
    "false",
]


@dataclass(eq=False)
class Server:
    name: str
    proc: subprocess.Popen
    url: str

    @property
    def ws(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"

    def status(self, key: str) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        raise KeyError(key)

    def rss_kib(self) -> int:
        return self.status("VmRSS")

    def threads(self) -> int:
        return self.status("Threads")

    def cpu_s(self) -> float:
        """User + system CPU seconds the server process has used."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SERVER_CPU, CLIENT_CPU = 0, 1
PIN = ["taskset", "-c", str(SERVER_CPU)]  # emptied by --no-pin


def start_server(name: str, python: str, app: str, app_dir: Path, uvicorn_args: list[str]):
    port = free_port()
    env = {**os.environ, "MAX_CONCURRENT_ENVS": "4096", "REF_MAX_CONCURRENT_ENVS": "4096"}
    env["ENABLE_WEB_INTERFACE"] = "0"
    cmd = [*PIN, python, "-m", "uvicorn", app, "--app-dir", str(app_dir), "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--log-level", "warning", "--no-access-log", *uvicorn_args]
    proc = subprocess.Popen(cmd, env=env, cwd=app_dir)
    return Server(name, proc, f"http://127.0.0.1:{port}")


def stop(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait(10)


def _wait_healthy(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise TimeoutError(url)


def raise_fd_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def throughput(
    servers: list[Server],
    counts: list[int],
    seconds: float,
    rounds: int,
    procs: int,
    client: str = "lean",
):
    print(
        f"\n== throughput: grid world, {seconds:g}s per run, best of {rounds} rounds, "
        f"{client} client, load generator in {procs} process(es) when N > 1"
    )
    best: dict[tuple[str, int], loadgen.LoadResult] = {}
    for n in counts:
        for _ in range(rounds):
            for server in servers:
                cpu0 = server.cpu_s()
                result = await loadgen.run_load_procs(server.ws, n, seconds, procs, client=client)
                result.cpu_us = 1e6 * (server.cpu_s() - cpu0) / max(result.all_steps, 1)
                print(
                    f"  {result.line(server.name)}  server CPU {result.cpu_us:.0f} us/step, "
                    f"load generator {result.client_cpu_us:.0f}"
                )
                key = (server.name, n)
                if key not in best or result.steps_per_s > best[key].steps_per_s:
                    best[key] = result
    print(
        "\n   sessions   ours steps/s   ref steps/s   ratio   ours p50/p99 ms    ref p50/p99 ms"
        "   server CPU us/step ours/ref"
    )
    for n in counts:
        ours, ref = best[("ours", n)], best.get(("reference", n))
        if ref is None:  # --ours-only
            print(f"   {n:>8}   {ours.steps_per_s:12.0f}   (no reference: --ours-only)")
            continue
        print(
            f"   {n:>8}   {ours.steps_per_s:12.0f}   {ref.steps_per_s:11.0f}   "
            f"{ours.steps_per_s / max(ref.steps_per_s, 1e-9):5.2f}x   "
            f"{ours.percentile(50):6.2f}/{ours.percentile(99):<7.2f}   "
            f"{ref.percentile(50):6.2f}/{ref.percentile(99):<7.2f}   "
            f"{ours.cpu_us:5.0f}/{ref.cpu_us:<5.0f} "
            f"({ref.cpu_us / max(ours.cpu_us, 1e-9):.2f}x less)"
        )


async def idle(server: Server, count: int) -> None:
    """RSS and threads of ``server`` before and after opening ``count`` idle sessions."""
    # Warm up imports, caches and the shared worker pool (bounded: it does not grow with the
    # number of sessions, so it must not count as what a session costs).
    await loadgen.churn(server.ws, 200, parallel=8)
    await asyncio.sleep(0.5)
    rss0, threads0 = server.rss_kib(), server.threads()
    sockets, errors = await loadgen.open_idle(server.ws, count)
    await asyncio.sleep(2.0)
    rss1, threads1 = server.rss_kib(), server.threads()
    per = (rss1 - rss0) / max(len(sockets), 1)
    print(
        f"  {server.name:<10} {len(sockets)} idle sessions: RSS +{(rss1 - rss0) / 1024:.1f} MiB "
        f"({per:.1f} KiB/session), threads {threads0} -> {threads1}, errors {errors}"
    )
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


async def churn(server: Server, cycles: int) -> None:
    def counts() -> str:
        fds, threads = server.fds(), server.threads()  # before our own HTTP query below
        active = ""
        with contextlib.suppress(httpx.HTTPError, ValueError):
            reply = httpx.get(server.url + "/_bench/sessions", timeout=5)
            if reply.status_code == 200:
                active = f", active sessions {reply.json()['active']}"
        return f"fds {fds}, threads {threads}{active}"

    await loadgen.churn(server.ws, 200)  # warm up: the shared worker pool reaches its size
    await asyncio.sleep(1.0)
    before = counts()
    t0 = time.perf_counter()
    errors = await loadgen.churn(server.ws, cycles)
    took = time.perf_counter() - t0
    await asyncio.sleep(2.0)
    print(f"  {server.name:<10} {cycles} cycles in {took:.1f}s, errors {errors}")
    print(f"  {'':<10} before: {before}")
    print(f"  {'':<10} after:  {counts()}")


@contextlib.contextmanager
def bare_server(uvicorn_args: list[str]) -> Iterator[Server]:
    """The floor: the smallest /ws app (bench/bare_ws_app.py) under the same uvicorn options."""
    server = start_server(
        "bare ASGI", sys.executable, "bare_ws_app:app", ROOT / "bench", uvicorn_args
    )
    try:
        _wait_healthy(server.url, server.proc)
        yield server
    finally:
        stop(server)


@contextlib.contextmanager
def both_servers(
    uvicorn_args: list[str], ours_args: list[str], with_ref: bool = True
) -> Iterator[list[Server]]:
    """Start the reference and ours side by side (their imports overlap); stop both after.

    Both get ``uvicorn_args``; ours also gets ``ours_args`` (what ``openenv serve`` adds).
    """
    servers = []
    if with_ref:
        ref_python = str(ensure_ref_venv())
        compat = ROOT / "tests" / "compat"
        servers.append(
            start_server("reference", ref_python, "ref_grid_app:app", compat, uvicorn_args)
        )
    servers.append(
        start_server(
            "ours", sys.executable, "bench_apps:app", ROOT / "bench", uvicorn_args + ours_args
        )
    )
    try:
        for server in servers:
            _wait_healthy(server.url, server.proc)
        yield servers
    finally:
        for server in servers:
            stop(server)


async def main(args: argparse.Namespace) -> None:
    uvicorn_args = ["--loop", args.loop, "--http", args.http]
    # Ours runs as `openenv serve` / `python app.py` / a Space run it (openenv.cli.serve.run:
    # our lean WebSocket protocol, no per-message deflate), unless --ws picks one for both.
    ours_args = ["--ws", args.ws] if args.ws else OPENENV_SERVE_WS
    ref_args = ["--ws", args.ws or "auto"]
    print(
        f"uvicorn options for both servers: {' '.join(uvicorn_args)}; reference: "
        f"{' '.join(ref_args)}; ours: {' '.join(ours_args)}; cpus: {os.cpu_count()}"
    )
    with both_servers(uvicorn_args + ref_args, ours_args, with_ref=not args.ours_only) as servers:
        ours, ref = servers[-1], servers[0]
        if args.sessions:
            await throughput(
                servers, args.sessions, args.seconds, args.rounds, args.procs, args.client
            )
        if args.idle:
            print(f"\n== idle: {args.idle} open sessions (each reset once), no traffic")
            for server in dict.fromkeys((ours, ref)):
                await idle(server, args.idle)
            with bare_server(uvicorn_args + ref_args) as bare:
                await idle(bare, args.idle)
            print(
                "  (bare ASGI: bench/bare_ws_app.py, no framework and no state, under uvicorn's "
                "defaults: stock uvicorn's own per-connection cost)"
            )
        if args.churn:
            print("\n== churn: connect / reset / step / close, 8 at a time")
            await churn(ours, args.churn)
            if ref is not ours:
                await churn(ref, max(args.churn // 10, 100))


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    counts = lambda s: [int(x) for x in s.split(",") if x]  # noqa: E731
    p.add_argument("--sessions", type=counts, default=[1, 64], help="e.g. 1,64")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--idle", type=int, default=1000)
    p.add_argument("--churn", type=int, default=None, help="cycles (10,000; 1,000 with --quick)")
    p.add_argument("--loop", default="asyncio", choices=["asyncio", "uvloop"])
    p.add_argument("--http", default="h11", choices=["h11", "httptools"])
    p.add_argument("--procs", type=int, default=1, help="load generator processes for N > 1")
    p.add_argument(
        "--ws",
        default=None,
        choices=["auto", "websockets", "websockets-sansio"],
        help="one WebSocket implementation for both (default: ours as openenv serve runs it, "
        "the reference with uvicorn's auto)",
    )
    p.add_argument("--ours-only", action="store_true", help="skip the reference server")
    p.add_argument("--client", default="lean", choices=sorted(loadgen.CLIENTS))
    p.add_argument("--no-pin", action="store_true", help="let servers and load float over CPUs")
    p.add_argument("--quick", action="store_true", help="2s runs, 1 round, churn 1,000")
    args = p.parse_args()
    if args.quick:
        args.seconds, args.rounds = 2.0, 1
    if args.no_pin:
        PIN.clear()
    elif hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > CLIENT_CPU:
        os.sched_setaffinity(0, {CLIENT_CPU})
    else:
        PIN.clear()  # one CPU: nothing to pin apart
    if args.churn is None:
        args.churn = 1000 if args.quick else 10000
    return args


def client_loop_factory():
    """The load generator runs on uvloop when available, so the client costs less CPU and the
    figures say more about the servers (which run with identical uvicorn options)."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


if __name__ == "__main__":
    raise_fd_limit()
    factory = client_loop_factory()
    print(f"load generator event loop: {'uvloop' if factory else 'asyncio'}")
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main(parse_args()))
