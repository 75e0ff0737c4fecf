"""A crowd on one core: how many sessions ours and the reference hold, side by side.

Prints a table; asserts nothing. Each point runs on a fresh server pinned to CPU 0 (``taskset``)
with this load generator on CPU 1; N doubles until more than 1 % of the steps fail or the p99
latency passes the workload's bound. Reproduce with::

    python bench/bench_crowd.py                       # grid world, 1 s-sleep env, visitors
    python bench/bench_crowd.py --workloads sleep --seconds 10 --ours-only
    python bench/bench_crowd.py --workloads sleep --ours-only --sessions 512,768,1024
    python bench/bench_crowd.py --workloads visitors --ours-only --max-sessions 64
    python bench/bench_crowd.py --workloads catalog --ours-only  # visitors of python app.py

Workloads: ``grid``, the grid world over /ws, each session stepping once a second after each
answer (bound: p99 250 ms); ``sleep``, an env whose step sleeps one second, each session
stepping again as soon as it is answered (bound: p99 1,200 ms); ``visitors``, playground
visitors clicking the grid world's buttons at /web, each once a second after each answer
(bound: p99 300 ms, from N=32); ``catalog``, the same visitors on the grid world's playground in
the catalog (``python app.py``, every env of envs/ in one process, under /envs/grid_world/web).
The reference (``openenv`` 0.10.0) runs from the compat tests'
cached virtualenv under uvicorn's defaults; ours as ``openenv serve`` runs it. Loopback only;
every loop is bounded by --seconds and --max-sessions. Each row gives the server's CPU time per
step or click (from /proc of the server process, over the measured window).

Playground visitors are driven at protocol level, with the calls a real page makes. Recorded
from the grid world's page in Chromium (Playwright, every request to /web/...), a visitor's
page makes, besides its static files:

- on load: ``GET /web/`` (the page, with the fast shell inlined), ``GET
  /web/gradio_api/heartbeat/<session_hash>`` (an event stream held open while the tab lives; its
  end runs the page's unload, which frees the session), and Gradio's load event:
  ``POST /web/gradio_api/queue/join`` ``{"data": [""], "fn_index": <on_load>, "trigger_id",
  "session_hash"}`` then ``GET /web/gradio_api/queue/data?session_hash=...`` (an event stream
  read to its ``close_stream``), whose ``process_completed`` carries the stage (the tab's key is
  its ``data-tab``); then ``POST /web/stage/panels`` ``{"tab": key, "panels": ["rewards",
  "fresh"]}`` (the side panels in view: the Rewards tab, selected, is on screen at first);
- per click on an action button: ``POST /web/stage/act`` ``{"tab": key, "index": i, "panels":
  ["rewards"]}``, whose answer is the whole stage with the side panels in view (the Rewards
  tab, selected, is on screen): one round trip a click. Until December 2026 the panels came
  with a second call (``POST /web/stage/panels`` after each answer), and before that through
  Gradio's queue, twice a click (``queue/join`` + ``queue/data`` each: 5 requests and 2 event
  streams a click, ~20 ms of server CPU).

The load generator replays exactly these (:class:`loadgen.LeanHTTP`, one keep-alive connection
per visitor as a browser keeps, plus the held heartbeat stream), the function indexes read from
the page's ``/web/config`` (a page without ``on_refresh`` is replayed without it); the page's
HTML itself and the static files are not fetched (a one-off per visit, not per click; the
recording is ``python bench/bench_crowd.py --record``: redo it when the page changes what a
click sends). A click's latency is its ``stage/act`` round trip (the board
redrawn); "with panels" adds the refresh, after which the visitor waits a second before the next
click; server CPU per click counts both. The reference's playground is Gradio's own page with
its own calls: it is not replayed here (``bench/bench_web.py`` compares both pages in Chromium).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import bench_server
from bench_server import OPENENV_SERVE_WS, Server, _wait_healthy, free_port, stop
from loadgen import RESET, STEPS, LeanConnection, LeanHTTP

ROOT = Path(__file__).resolve().parent.parent
SERVER_CPU, CLIENT_CPU = 0, 1


@dataclass(frozen=True)
class Workload:
    name: str
    think_s: float  # pause after each answer before the next step
    bound_ms: float  # p99 over this ends the series
    first_n: int = 64  # the series' first N (unless --min-sessions says)
    opens_per_s: float = 500.0  # how fast sessions are opened, for the warm-up's length
    web: str | None = None  # visitors: the playground's path (None: agents over /ws)
    app: str = ""  # ours: uvicorn's app (default crowd_apps:<name>)
    app_dir: Path = ROOT / "bench"


WORKLOADS = {
    "grid": Workload("grid", think_s=1.0, bound_ms=250.0),
    "sleep": Workload("sleep", think_s=0.0, bound_ms=1200.0),
    "visitors": Workload(
        "visitors", think_s=1.0, bound_ms=300.0, first_n=32, opens_per_s=50.0, web="/web"
    ),
    # The same visitors on the grid world's playground in the catalog (python app.py).
    "catalog": Workload(
        "catalog",
        think_s=1.0,
        bound_ms=300.0,
        first_n=32,
        opens_per_s=50.0,
        web="/envs/grid_world/web",
        app="app:app",
        app_dir=ROOT,
    ),
}
GUARDED_HTTP = ["--http", "openenv.server.guarded_http:GuardedH11Protocol"]  # openenv serve's


@dataclass
class Point:
    server: str
    workload: str
    sessions: int
    steps: int = 0
    errors: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    cpu_percent: float = 0.0
    cpu_s: float = 0.0  # the server's CPU time over the measured window
    client_cpu_percent: float = 0.0  # the load generator's own: it must not be what limits
    rss_mib: float = 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    @property
    def error_rate(self) -> float:
        return self.errors / max(self.steps + self.errors, 1)

    @property
    def cpu_ms(self) -> float:
        """Server CPU milliseconds per step (per click for visitors)."""
        return 1000 * self.cpu_s / self.steps if self.steps else float("nan")

    @property
    def unit(self) -> str:
        return "clicks" if self.workload in ("visitors", "catalog") else "steps"

    def row(self) -> str:
        return (
            f"  {self.server:<10} {self.workload:<8} N={self.sessions:<5} "
            f"{self.steps / max(self.seconds, 1e-9):8.0f} {self.unit}/s  "
            f"p50 {self.percentile(50):8.1f} ms  p99 {self.percentile(99):8.1f} ms  "
            f"errors {100 * self.error_rate:5.2f} %  "
            f"server CPU {self.cpu_percent:3.0f} % ({self.cpu_ms:5.2f} ms/{self.unit[:-1]})  "
            f"RSS {self.rss_mib:6.0f} MiB  "
            f"load generator CPU {self.client_cpu_percent:3.0f} %"
        )


def start(kind: str, work: Workload, max_sessions: int) -> Server:
    """A fresh server of ``kind`` for ``work``, pinned to SERVER_CPU."""
    port = free_port()
    env = {**os.environ, "ENABLE_WEB_INTERFACE": "0" if work.web is None else "1"}
    env["MAX_CONCURRENT_ENVS"] = env["REF_MAX_CONCURRENT_ENVS"] = str(max_sessions)
    env["MAX_SESSIONS_PER_CLIENT"] = "0"
    env["OPENENV_MAX_TABS"] = str(2 * max_sessions)  # visitors: a tab per page, then some
    app_dir = work.app_dir
    if kind == "ours":
        python, app = sys.executable, work.app or f"crowd_apps:{work.name}"
        extra = [*OPENENV_SERVE_WS, *(GUARDED_HTTP if work.web is not None else [])]
    else:
        python, app = str(bench_server.ensure_ref_venv()), f"ref_crowd_apps:{work.name}"
        extra, app_dir = [], ROOT / "bench"
    cmd = ["taskset", "-c", str(SERVER_CPU), python, "-m", "uvicorn", app]
    cmd += ["--app-dir", str(app_dir), "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--log-level", "warning", "--no-access-log", "--backlog", "8192", *extra]
    import subprocess

    proc = subprocess.Popen(cmd, env=env, cwd=ROOT / "bench")
    server = Server(kind, proc, f"http://127.0.0.1:{port}")
    _wait_healthy(server.url, proc)
    return server


async def _session(url: str, work: Workload, window: tuple[float, float], point: Point) -> None:
    try:
        ws = await asyncio.wait_for(LeanConnection.open(url), 60)
    except (OSError, TimeoutError, ConnectionError):
        point.errors += 1
        return
    try:
        ws.send(RESET)
        if json.loads(await asyncio.wait_for(ws.recv(), 60)).get("type") != "observation":
            point.errors += 1
            return
        await asyncio.sleep(random.uniform(0, work.think_s))  # spread the crowd over a second
        i = 0
        while (t0 := time.perf_counter()) < window[1]:
            ws.send(STEPS[i & 1])
            reply = await asyncio.wait_for(ws.recv(), 30)
            t1 = time.perf_counter()
            i += 1
            if t0 >= window[0]:
                if '"observation"' in reply:
                    point.steps += 1
                    point.latencies.append(t1 - t0)
                else:
                    point.errors += 1
            if work.think_s:
                await asyncio.sleep(work.think_s)
    except (OSError, TimeoutError, ConnectionError, ValueError):
        point.errors += 1
    finally:
        ws.close()


# -- playground visitors (see the module docstring for the calls a page makes) --------------


@dataclass(frozen=True)
class PageEvents:
    """The Gradio events a playground page fires: (fn_index, trigger_id) of its load event
    and of the refresh of its panels after the stage changed (``None``: a page without one)."""

    load: tuple[int, int]
    refresh: tuple[int, int] | None


async def page_events(url: str, web: str) -> PageEvents:
    """Read the page's event indexes from its config (``{web}/config``)."""
    http = await LeanHTTP.open(url)
    try:
        status, body = await http.get(f"{web}/config")
    finally:
        http.close()
    if status != 200:
        raise RuntimeError(f"{web}/config answered {status}")
    found: dict[str, tuple[int, int]] = {}
    for index, dep in enumerate(json.loads(body)["dependencies"]):
        target = (dep.get("targets") or [[None]])[0][0]
        if dep.get("api_name") in ("on_load", "on_refresh"):
            found[dep["api_name"]] = (index, target if target is not None else 0)
    if "on_load" not in found:
        raise RuntimeError(f"the page has no on_load event: {sorted(found)}")
    return PageEvents(found["on_load"], found.get("on_refresh"))


async def gradio_event(
    http: LeanHTTP, web: str, page: str, event: tuple[int, int] | None, data: list
) -> str:
    """Fire a Gradio event as the page does (queue/join, then its event stream read to the
    end); the first output, or ValueError when the event failed. No event: nothing to do."""
    if event is None:
        return ""
    join = {"data": data, "event_data": None, "fn_index": event[0], "trigger_id": event[1]}
    status, body = await http.post(
        f"{web}/gradio_api/queue/join?", json.dumps({**join, "session_hash": page}).encode()
    )
    if status != 200:
        raise ValueError(f"queue/join answered {status}")
    event_id = json.loads(body)["event_id"]
    status, stream = await http.get(f"{web}/gradio_api/queue/data?session_hash={page}")
    if status != 200:
        raise ValueError(f"queue/data answered {status}")
    for line in stream.decode().splitlines():
        if not line.startswith("data:"):
            continue
        message = json.loads(line[5:])
        if message.get("event_id") == event_id and message.get("msg") == "process_completed":
            output = message.get("output") or {}
            if not message.get("success", True) or "error" in output:
                raise ValueError(f"the event failed: {output.get('error')}")
            return str((output.get("data") or [""])[0])
    raise ValueError("the event stream ended without the event's result")


async def heartbeat(url: str, web: str, page: str) -> asyncio.StreamWriter:
    """The page's heartbeat stream, held open (and drained) until the writer is closed."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(
        f"GET {web}/gradio_api/heartbeat/{page} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )

    async def drain() -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while await reader.read(65536):
                pass

    task = asyncio.ensure_future(drain())
    _drains.add(task)  # held until the stream ends
    task.add_done_callback(_drains.discard)
    return writer


_drains: set[asyncio.Future[None]] = set()
# The side panels a click brings back with the stage (--record shows them): the Rewards chart,
# on screen (replayed: a visitor watching the chart).
PANELS_IN_VIEW = ["rewards"]
_BUTTON = re.compile(r'<button type="button" class="oe-act" data-i="(\d+)"[^>]*>([^<]*)')


async def panels(http: LeanHTTP, web: str, tab: str, names: list[str]) -> None:
    """The page's refresh of its side panels in view (the stage's panels route)."""
    status, body = await http.post(
        f"{web}/stage/panels", json.dumps({"tab": tab, "panels": names}).encode()
    )
    if status != 200 or not json.loads(body).get("ok"):
        raise ValueError(f"stage/panels answered {status}: {body[:200]!r}")


def moves(stage: str) -> list[int]:
    """The indexes of the Down and Up buttons of the grid world's stage (two buttons)."""
    buttons = {text.strip(): int(i) for i, text in _BUTTON.findall(stage)}
    picked = [i for name, i in buttons.items() if "Down" in name or "Up" in name]
    if len(picked) != 2:
        raise ValueError(f"no Down and Up buttons on the stage: {sorted(buttons)}")
    return picked


async def _visitor(
    url: str, events: PageEvents, work: Workload, window: tuple[float, float], point: Point
) -> None:
    page = secrets.token_hex(6)[:11]  # Gradio's session_hash, made by the page
    web = work.web or "/web"
    try:
        http = await asyncio.wait_for(LeanHTTP.open(url), 60)
        beat = await asyncio.wait_for(heartbeat(url, web, page), 60)
    except (OSError, TimeoutError, ConnectionError):
        point.errors += 1
        return
    try:
        stage = await asyncio.wait_for(gradio_event(http, web, page, events.load, [""]), 60)
        key = re.search(r'data-tab="([^"]+)"', stage)
        if key is None:
            raise ValueError(f"the page got no tab: {stage[:200]}")
        tab, buttons = key[1], moves(stage)
        await asyncio.wait_for(gradio_event(http, web, page, events.refresh, []), 60)
        await asyncio.wait_for(panels(http, web, tab, ["rewards", "fresh"]), 60)
        await asyncio.sleep(random.uniform(0, work.think_s))  # spread the crowd over a second
        i = 0
        while (t0 := time.perf_counter()) < window[1]:
            click = json.dumps(
                {"tab": tab, "index": buttons[i & 1], "panels": PANELS_IN_VIEW}
            ).encode()
            i += 1
            try:
                status, body = await asyncio.wait_for(http.post(f"{web}/stage/act", click), 30)
                t1 = time.perf_counter()
                answer = json.loads(body) if status == 200 else {}
                if answer.get("ok") and "rewards" not in answer.get("panels", {}):
                    raise ValueError(f"stage/act brought no Rewards panel: {body[:200]!r}")
                if answer.get("done"):  # the visitor presses Reset (not counted as a click)
                    await http.post(f"{web}/stage/reset", json.dumps({"tab": tab}).encode())
            except (OSError, TimeoutError, ConnectionError, ValueError):
                answer, t1 = {}, 0.0
                http.close()  # a late answer must not be read as the next one's
                http = await asyncio.wait_for(LeanHTTP.open(url), 60)
            if t0 >= window[0]:
                if answer.get("ok") is True:
                    point.steps += 1
                    point.latencies.append(t1 - t0)
                else:
                    point.errors += 1
            await asyncio.sleep(work.think_s)
    except (OSError, TimeoutError, ConnectionError, ValueError, KeyError):
        point.errors += 1  # the page did not load (or could not connect again)
    finally:
        http.close()
        beat.close()


async def measure(server: Server, work: Workload, sessions: int, seconds: float) -> Point:
    """``sessions`` sessions on ``server``: connected in batches, warmed up, then measured."""
    point = Point(server.name, work.name, sessions, seconds=seconds)
    ramp = 2.0 + sessions / work.opens_per_s  # connecting thousands takes a while on one core
    start_at = time.perf_counter() + ramp + max(work.think_s, 1.0)
    window = (start_at, start_at + seconds)
    if work.web is not None:
        events = await page_events(server.url, work.web)

        def one() -> asyncio.Future[None]:
            return asyncio.ensure_future(_visitor(server.url, events, work, window, point))
    else:

        def one() -> asyncio.Future[None]:
            return asyncio.ensure_future(_session(server.ws, work, window, point))

    tasks = []
    for i in range(0, sessions, 100):
        tasks += [one() for _ in range(min(100, sessions - i))]
        await asyncio.sleep(0.05)
    await asyncio.sleep(max(0.0, window[0] - time.perf_counter()))
    cpu0, mine0, t0 = server.cpu_s(), time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    took = time.perf_counter() - t0
    point.cpu_s = server.cpu_s() - cpu0
    point.cpu_percent = 100 * point.cpu_s / took
    point.client_cpu_percent = 100 * (time.process_time() - mine0) / took
    point.rss_mib = server.rss_kib() / 1024
    await asyncio.wait(tasks, timeout=60)
    return point


def failed(point: Point, work: Workload) -> bool:
    return point.error_rate > 0.01 or point.percentile(99) > work.bound_ms


async def series(
    kind: str, work: Workload, counts: list[int], seconds: float, rounds: int, every: bool = False
) -> list[Point]:
    """Grow N until a point fails (``every``: measure every N of ``counts``); a failed point is
    measured again (up to ``rounds`` times in all, on a fresh server each time, the best kept):
    a noisy machine's hiccup must not end the series."""
    points = []
    for n in counts:
        best: Point | None = None
        for _ in range(rounds):
            server = start(kind, work, max(counts))
            try:
                point = await measure(server, work, n, seconds)
            finally:
                stop(server)
            print(point.row(), flush=True)
            if best is None or (point.error_rate, point.percentile(99)) < (
                best.error_rate,
                best.percentile(99),
            ):
                best = point
            if not failed(best, work):
                break
        assert best is not None
        points.append(best)
        if failed(best, work) and not every:
            break
    return points


def table(points: list[Point]) -> None:
    print(
        "\n| workload | sessions | server | steps or clicks/s | p50 ms | p99 ms | errors | CPU "
        "| CPU ms a step or click | RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in points:
        print(
            f"| {p.workload} | {p.sessions:,} | {p.server} | {p.steps / p.seconds:,.0f} | "
            f"{p.percentile(50):,.0f} | {p.percentile(99):,.0f} | {100 * p.error_rate:.1f} % | "
            f"{p.cpu_percent:.0f} % | {p.cpu_ms:.2f} | {p.rss_mib:,.0f} |"
        )


def record(clicks: int = 3) -> None:
    """Open the visitors' page in Chromium, click Down ``clicks`` times and print the requests
    to the playground the page made on load and per click (what ``_visitor`` replays)."""
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    server = start("ours", WORKLOADS["visitors"], 8)
    seen: list[str] = []
    pending: set[Any] = set()

    def note(request: Any) -> None:
        path = urlsplit(request.url).path
        if path.startswith("/web") and not path.endswith(STATIC):
            seen.append(f"  {request.method} {path}  {(request.post_data or '')[:160]}")
            if "/heartbeat/" not in path:  # held open while the tab lives
                pending.add(request)

    def settled(page: Any) -> None:
        """Wait until the page's calls are answered (and a little more for those they start)."""
        deadline = time.monotonic() + 60
        quiet = 0
        while quiet < 5 and time.monotonic() < deadline:
            quiet = quiet + 1 if not pending else 0
            page.wait_for_timeout(100)

    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.set_default_timeout(90_000)
            page.on("request", note)
            page.on("requestfinished", lambda request: pending.discard(request))
            page.on("requestfailed", lambda request: pending.discard(request))
            page.goto(server.url + "/web/")
            page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
            settled(page)
            print("on load:", *seen, sep="\n")
            for n in range(1, clicks + 1):
                seen.clear()
                page.click("#oe-stage .oe-act:has-text('Down')")
                page.wait_for_selector(f'#oe-stage .oe-stage[data-steps="{n}"]')
                settled(page)
                print(f"click {n}:", *seen, sep="\n")
            browser.close()
    finally:
        stop(server)


def session_counts(text: str) -> list[int]:
    """``--sessions``: positive numbers separated by commas, in order, each once."""
    try:
        counts = sorted({int(n) for n in text.split(",") if n.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not counts or counts[0] < 1:
        raise argparse.ArgumentTypeError(f"numbers of sessions are 1 or more: {text!r}")
    return counts


STATIC = (".js", ".css", ".woff2", ".svg", ".png", ".ico", ".map")


async def main(args: argparse.Namespace) -> None:
    os.sched_setaffinity(0, {CLIENT_CPU})
    sizes = [2**k for k in range(14)]  # 1 .. 8192
    kinds = ["ours"] if args.ours_only else ["ours", "reference"]
    points = []
    for name in args.workloads.split(","):
        work = WORKLOADS[name]
        least = args.min_sessions if args.min_sessions is not None else work.first_n
        counts = [n for n in sizes if least <= n <= args.max_sessions]
        if args.sessions:  # chosen points instead of the doubling series
            counts = args.sessions
        for kind in kinds:
            if kind == "reference" and work.web is not None:
                print("  reference  visitors: not replayed (Gradio's own page: see the docstring)")
                continue
            points += await series(
                kind, work, counts, args.seconds, args.rounds, every=bool(args.sessions)
            )
    table(points)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--workloads", default="grid,sleep,visitors")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument(
        "--min-sessions", type=int, default=None, help="the first N (default: 64; visitors 32)"
    )
    p.add_argument("--max-sessions", type=int, default=8192)
    p.add_argument(
        "--sessions",
        type=session_counts,
        default=[],
        help="these N only, e.g. 512,768,1024 (instead of doubling)",
    )
    p.add_argument("--ours-only", action="store_true")
    p.add_argument("--rounds", type=int, default=2, help="tries of a point that fails")
    p.add_argument(
        "--record",
        action="store_true",
        help="print the requests a real page makes on load and per click (Chromium), and stop",
    )
    bench_server.raise_fd_limit()
    parsed = p.parse_args()
    if parsed.record:
        record()
    else:
        asyncio.run(main(parsed))
