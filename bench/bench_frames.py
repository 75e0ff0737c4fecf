"""Frames on the wire: what each encoding costs, and Atari Pong over /ws against raw ale-py.

Prints figures; asserts nothing. Reproduce with::

    python bench/bench_frames.py            # encodings, raw vs /ws, browser autoplay
    python bench/bench_frames.py --quick    # shorter runs
    python bench/bench_frames.py --no-browser

1. Encoding: encode time, JSON size and decode time of one Pong frame per encoding.
2. Steps/s of the same Pong loop (random legal actions, frameskip 4, RGB screen):
   raw ``ale-py`` in this process, ``AtariEnvironment.step`` in this process, and the typed
   ``AtariEnv`` client over ``/ws`` to a uvicorn server (one session each), blocking
   (``.sync()``) and async, per encoding; then, to show what polling gives (see
   ``openenv.pacing``), ``.sync()`` with the client's polling off, and against a
   second server with the server's polling off. The ratio to the raw rate measured in the
   same run is the figure the issue asks for (target ≥ 0.5). CPU time per step is given for this
   process and for the server (read from ``/proc``): on a busy machine wall-clock rates swing,
   CPU per step much less. A request and its answer alternate between client and server, so
   a /ws step takes about client + server CPU plus two wake-ups of an idle process; the last
   line measures those wake-ups on a bare loopback socket (no framework).
3. Browser: the playground autoplaying Pong and CartPole in headless Chromium; frames/s are
   counted from the playground's frame image changing (see ``browser_fps``).

``bench/bench_timeline.py`` breaks one /ws step into its segments (wire, server framing,
``env.step``, client) on one clock.

(Over 400 lines: one benchmark, its windows and its report.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atari_env import AtariAction, AtariEnv  # noqa: E402
from atari_env.server.environment import AtariEnvironment  # noqa: E402

from openenv import pacing  # noqa: E402
from openenv.core.frames import ENCODINGS, decode_frame, encode_frame  # noqa: E402
from tests.conftest import serve  # noqa: E402

SEED = 0


def best_of(fn, repeats: int, number: int) -> float:
    """Best mean seconds per call over ``repeats`` runs of ``number`` calls (noise-resistant)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def pong_frames(count: int) -> list[np.ndarray]:
    env = AtariEnvironment()
    env.reset(seed=SEED)
    rng = random.Random(SEED)
    frames = []
    for _ in range(count):
        env.step(AtariAction(action_id=rng.randrange(6)))
        frames.append(env.render().pixels)
    env.close()
    return frames


def bench_encodings(quick: bool) -> None:
    frames = pong_frames(20)
    frame = frames[-1]
    print("\n## 1. One Pong frame (210x160x3 = 100,800 bytes) per encoding")
    print(f"{'encoding':>9} {'JSON bytes':>11} {'encode us':>10} {'decode us':>10}")
    number = 20 if quick else 60
    for encoding in ENCODINGS:
        wire = encode_frame(frame, encoding)
        payload = wire if isinstance(wire, list) else wire.model_dump()
        text = json.dumps(payload)
        n = max(2, number // 10) if encoding == "list" else number
        enc = best_of(lambda e=encoding: json.dumps(_dumpable(encode_frame(frame, e))), 3, n)
        dec = best_of(lambda t=text: decode_frame(json.loads(t), [210, 160, 3]), 3, n)
        print(f"{encoding:>9} {len(text):>11,} {enc * 1e6:>10.0f} {dec * 1e6:>10.0f}")


def _dumpable(wire):
    return wire if isinstance(wire, list) else wire.model_dump()


class RawAle:
    """The env's inner loop without the framework: 4 frames per action, then the RGB screen."""

    def __init__(self) -> None:
        self.env = AtariEnvironment()
        self.env.reset(seed=SEED)
        self.rng = random.Random(SEED)

    def step(self) -> None:
        ale, actions = self.env._ale, self.env._actions  # the emulator the env set up
        button = actions[self.rng.randrange(len(actions))]
        for _ in range(4):
            ale.act(button)
            if ale.game_over():
                ale.reset_game()
                break
        ale.getScreenRGB()


class LocalEnv:
    """``AtariEnvironment.step`` in this process (emulator + observation + encoding)."""

    def __init__(self, encoding: str) -> None:
        self.env, self.encoding = AtariEnvironment(), encoding
        self.env.reset(seed=SEED, frame_encoding=encoding)
        self.rng = random.Random(SEED)

    def step(self) -> None:
        if self.env.step(AtariAction(action_id=self.rng.randrange(6))).done:
            self.env.reset(frame_encoding=self.encoding)


def children_cpu_s() -> float:
    """CPU seconds (user + system) used so far by this process's children: the server.

    Read from ``/proc`` (Linux); ``nan`` elsewhere.
    """
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    try:
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            for pid in (task / "children").read_text().split():
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick
    except OSError:
        return float("nan")
    return total


class Window:
    """Steps, wall time and CPU time (this process, the server) of one measuring window."""

    def __init__(self) -> None:
        self.steps = 0
        self.wall, self.cpu, self.server = time.perf_counter(), time.process_time(), 0.0
        self._server0 = children_cpu_s()

    def close(self) -> Window:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu
        self.server = children_cpu_s() - self._server0
        return self

    @property
    def rate(self) -> float:
        return self.steps / self.wall


def timed_window(step, seconds: float) -> Window:
    window = Window()
    while time.perf_counter() - window.wall < seconds:
        step()
        window.steps += 1
    return window.close()


async def ws_window(client, seconds: float, encoding: str, rng: random.Random) -> Window:
    """Typed async client over /ws, decoding every frame as a real client would."""
    window = Window()
    while time.perf_counter() - window.wall < seconds:
        result = await client.step(AtariAction(action_id=rng.randrange(6)))
        result.observation.screen_array()
        if result.done:
            await client.reset(frame_encoding=encoding)
        window.steps += 1
    return window.close()


def sync_window(client, seconds: float, encoding: str, rng: random.Random) -> Window:
    """The same loop with the blocking client (``.sync()``)."""
    window = Window()
    while time.perf_counter() - window.wall < seconds:
        result = client.step(AtariAction(action_id=rng.randrange(6)))
        result.observation.screen_array()
        if result.done:
            client.reset(frame_encoding=encoding)
        window.steps += 1
    return window.close()


async def compare(
    url: str, still_url: str, encoding: str, windows: int, seconds: float
) -> dict[str, list]:
    """Alternate short windows of raw ale-py, env.step and both clients over /ws, so they share
    the same load. ``still_url`` is the same server with its polling off."""
    raw, local = RawAle(), LocalEnv(encoding)
    keys = ("raw", "env", "ws", "sync", "nopoll", "still", "bytes")
    runs: dict[str, list] = {key: [] for key in keys}
    rng = random.Random(SEED)
    async with AtariEnv(base_url=url) as client:
        first = await client.reset(seed=SEED, frame_encoding=encoding)
        runs["bytes"].append(len(first.observation.model_dump_json()))
        blocking, still = AtariEnv(base_url=url).sync(), AtariEnv(base_url=still_url).sync()
        with blocking, still:
            blocking.reset(seed=SEED, frame_encoding=encoding)
            still.reset(seed=SEED, frame_encoding=encoding)
            for _ in range(windows):
                runs["raw"].append(timed_window(raw.step, seconds))
                runs["env"].append(timed_window(local.step, seconds))
                runs["ws"].append(await ws_window(client, seconds, encoding, rng))
                runs["sync"].append(sync_window(blocking, seconds, encoding, rng))
                runs["nopoll"].append(no_poll(sync_window, blocking, seconds, encoding, rng))
                runs["still"].append(sync_window(still, seconds, encoding, rng))
    return runs


def no_poll(window, client, *args):
    """A window of the blocking client with its busy-polling off (its pacer plain, as with
    ``OPENENV_CLIENT_SPIN_US=0``)."""
    connection = client.client._ws
    saved, connection.pacer = connection.pacer, pacing.PLAIN
    try:
        return window(client, *args)
    finally:
        connection.pacer = saved


def cpu_us(windows: list[Window], attr: str) -> float:
    """CPU microseconds per step over all windows (robust to other load, unlike wall time)."""
    return sum(getattr(w, attr) for w in windows) / sum(w.steps for w in windows) * 1e6


async def grid_windows(url: str, windows: int, seconds: float) -> list[Window]:
    """The framework alone: grid world steps over /ws with its typed client."""
    from grid_world_env import GridWorldAction, GridWorldEnv

    runs = []
    async with GridWorldEnv(base_url=url) as client:
        await client.reset(seed=SEED)
        for _ in range(windows):
            window = Window()
            while time.perf_counter() - window.wall < seconds:
                action = GridWorldAction(action="RIGHT" if window.steps % 2 else "LEFT")
                result = await client.step(action)
                window.steps += 1
                if result.done:
                    await client.reset()
            runs.append(window.close())
    return runs


def wake_cost_us(busy_us: float, rounds: int) -> float:
    """Round-trip cost beyond ``busy_us`` of a bare loopback TCP ping-pong whose peer computes
    ``busy_us`` before answering: what the machine charges for waking an idle process (a
    virtual CPU that went idle wakes slowly), with no framework at all."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        pid = os.fork()
        if pid == 0:  # the peer: answer each message after busy_us of work
            try:
                peer = socket.create_connection(listener.getsockname())
                peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                while data := peer.recv(65536):
                    until = time.perf_counter() + busy_us / 1e6
                    while time.perf_counter() < until:
                        pass
                    peer.sendall(data * 8)
            finally:
                os._exit(0)
        conn, _ = listener.accept()
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        start = time.perf_counter()
        for _ in range(rounds):
            conn.sendall(b"x" * 64)
            conn.recv(65536)
        elapsed = time.perf_counter() - start
    os.waitpid(pid, 0)
    return elapsed / rounds * 1e6 - busy_us


def step_after_idle_us(rounds: int, idle_s: float) -> tuple[float, float, float, float]:
    """Raw ale-py's step and ``AtariEnvironment.step`` back to back, and the env's step after
    this process slept ``idle_s`` first (a server sleeps between requests while its client
    works, and an idle CPU comes back with cold caches), in alternating batches of 100 steps.

    Returns the medians (us) of the three and the median per batch of raw / after-idle.
    """
    raw, local = RawAle(), LocalEnv("rows")
    batches: list[tuple[float, float, float]] = []
    for _ in range(rounds // 100):
        raw_t = best_of(raw.step, 1, 100)
        warm = best_of(local.step, 1, 100)
        took = 0.0
        for _ in range(100):
            time.sleep(idle_s)
            start = time.perf_counter()
            local.step()
            took += time.perf_counter() - start
        batches.append((raw_t * 1e6, warm * 1e6, took / 100 * 1e6))
    raw_us, warm_us, idle_us = (statistics.median(b[i] for b in batches) for i in range(3))
    return raw_us, warm_us, idle_us, statistics.median(b[0] / b[2] for b in batches)


def bench_steps(quick: bool) -> None:
    windows, seconds = (4, 0.5) if quick else (10, 1.0)
    print(
        f"\n## 2. Pong steps/s (frameskip 4, RGB): best of {windows} alternating windows "
        f"of {seconds:g} s"
    )
    plain = {"ENABLE_WEB_INTERFACE": "0"}
    still = {**plain, "OPENENV_SERVER_SPIN_US": "0"}
    app = "atari_env.server.app:app"
    with serve(app, env=plain, timeout=300) as url, serve(app, env=still, timeout=300) as still_url:
        for encoding in ENCODINGS:
            n = max(2, windows // 4) if encoding == "list" else windows
            r = asyncio.run(compare(url, still_url, encoding, n, seconds))
            raw, local = (max(w.rate for w in r[k]) for k in ("raw", "env"))
            print(
                f"{encoding:>5}: raw ale-py {raw:6.0f}/s | env.step {local:6.0f}/s "
                f"| {r['bytes'][0]:,} B/observation | CPU per step: raw "
                f"{cpu_us(r['raw'], 'cpu'):.0f} us, env.step {cpu_us(r['env'], 'cpu'):.0f} us"
            )
            labels = (
                ("sync", "blocking (.sync())"),
                ("ws", "async"),
                ("nopoll", ".sync(), client no polling"),
                ("still", ".sync(), server no polling"),
            )
            for key, label in labels:
                wire = max(w.rate for w in r[key])
                pairs = statistics.median(
                    w.rate / a.rate for w, a in zip(r[key], r["raw"], strict=True)
                )
                client_cpu, server_cpu = cpu_us(r[key], "cpu"), cpu_us(r[key], "server")
                print(
                    f"{'':>7}/ws typed client, {label:>27}: {wire:6.0f}/s = {wire / raw:.2f}x raw "
                    f"(median window ratio {pairs:.2f}) | CPU per step: client "
                    f"{client_cpu:.0f} + server {server_cpu:.0f} us"
                )
    with serve("grid_world_env.server.app:app", env=plain, timeout=300) as url:
        grid = asyncio.run(grid_windows(url, windows, seconds))
    client_cpu, server_cpu = cpu_us(grid, "cpu"), cpu_us(grid, "server")
    print(
        f"framework floor: grid world over /ws, typed client {max(w.rate for w in grid):6.0f}/s"
        f" | CPU per step: client {client_cpu:.0f} + server {server_cpu:.0f} us"
    )
    rounds = 1000 if quick else 3000
    costs = {busy: min(wake_cost_us(busy, rounds) for _ in range(3)) for busy in (0, 300, 700)}
    print(
        "machine floor: a bare loopback TCP round trip whose peer computes for 0 / 300 / 700 us "
        "costs " + " / ".join(f"{cost:.0f}" for cost in costs.values()) + " us more than the "
        "computing (waking an idle CPU is what grows)"
    )
    raw_us, warm_us, idle_us, ratio = step_after_idle_us(rounds * 2, 0.0005)
    print(
        f"machine floor: env.step back to back {warm_us:.0f} us, after 0.5 ms idle {idle_us:.0f}"
        f" us (raw ale-py {raw_us:.0f} us; medians of alternating batches): the server's "
        f"env.step alone runs at {ratio:.2f}x raw here, before any wire, framework or client"
    )


PLAYGROUNDS = {
    "Pong (atari_env)": ("atari_env.server.app:app", "atari_env.server.environment"),
    "CartPole (gymnasium_env)": (
        "gymnasium_env.server.app:app",
        "gymnasium_env.server.environment",
    ),
}
FRAME = "#oe-stage img.oe-frame"


def bench_browser(quick: bool) -> None:
    """Autoplay at the slider's top speed (60 steps/s) and count the frames the page shows."""
    print("\n## 3. Browser autoplay (headless Chromium, playground at /web, speed 60)")
    if not (ROOT / "web" / "playground.py").is_file():
        print("web/playground.py does not exist: nothing to measure")
        return
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    seconds = 4.0 if quick else 10.0
    server_ms = {label: playground_step_ms(label) for label in PLAYGROUNDS}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for label, (app, _) in PLAYGROUNDS.items():
            with serve(app, timeout=300) as url:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                calls: list[float] = []
                page.on("requestfinished", lambda r, c=calls: _record_call(r, c))
                page.add_init_script(TIME_FETCH)
                page.goto(url + "/web/")
                page.wait_for_selector(FRAME, timeout=120_000)
                page.wait_for_function("() => window.openenvPlayground?.play", timeout=60_000)
                calls.clear()
                page.evaluate("() => { window.benchFetches = []; }")
                fps, frames, distinct, episodes = autoplay_fps(page, seconds)
                fetches = page.evaluate("() => window.benchFetches")
                page.close()
            call_ms = statistics.median(calls) if calls else float("nan")
            fetch_ms = statistics.median(fetches) if fetches else float("nan")
            print(
                f"{label}: {fps:5.1f} frames/s ({frames} steps shown, {distinct} pictures swapped, "
                f"{episodes} episode(s)); per frame {1000 / max(fps, 1e-9):.1f} ms: "
                f"fetch() of the autoplay call {fetch_ms:.1f} ms as the page sees it, "
                f"{call_ms:.1f} ms on the wire, {server_ms[label]:.1f} ms of it the server's "
                f"step + render + PNG + update (in-process); the rest is the page"
            )
        browser.close()


def _record_call(request, calls: list[float]) -> None:
    """Durations of the playground's fast-path calls (POSTs other than Gradio's queue)."""
    if request.method != "POST" or "queue" in request.url or "heartbeat" in request.url:
        return
    timing = request.timing
    if timing.get("responseEnd", -1) > 0:
        calls.append(timing["responseEnd"] - max(timing.get("requestStart", 0), 0))


TIME_FETCH = """
window.benchFetches = [];
const plainFetch = window.fetch.bind(window);
window.fetch = async (input, init) => {
  const url = String(input && input.url ? input.url : input);
  const post = init && String(init.method || "").toUpperCase() === "POST";
  const timed = post && !url.includes("queue") && !url.includes("heartbeat");
  const start = performance.now();
  const response = await plainFetch(input, init);
  if (!timed) return response;
  await response.clone().text();  // the call ends when its answer has arrived
  window.benchFetches.push(performance.now() - start);
  return response;
};
"""

COUNT_PICTURES = """() => {
  const isFrame = (n) => n.matches?.("img.oe-frame") || n.querySelector?.("img.oe-frame");
  window.benchPictures = 0;
  const observer = new MutationObserver((changes) => {
    for (const c of changes) {
      const added = [...c.addedNodes].some(isFrame);
      if ((c.type === "attributes" && isFrame(c.target)) || added) window.benchPictures++;
    }
  });
  const options = {subtree: true, childList: true, attributes: true, attributeFilter: ["src"]};
  observer.observe(document.querySelector("#oe-stage"), options);
}"""
STEPS = "() => Number(document.querySelector('#oe-stage .oe-stage').dataset.steps)"


def autoplay_fps(page, seconds: float) -> tuple[float, int, int, int]:
    """Play until ``seconds`` of playing time (a finished episode is reset and play resumes).

    Returns frames/s (steps shown per second of playing), steps, pictures swapped in the page
    (a MutationObserver on the frame image), episodes.
    """
    page.evaluate(COUNT_PICTURES)
    playing_time, frames, episodes = 0.0, 0, 0
    while playing_time < seconds:
        before = page.evaluate(STEPS)
        start = time.perf_counter()
        page.evaluate("() => { window.openenvPlayground.play(0, 60); }")
        while page.evaluate("() => window.openenvPlayground.isPlaying()"):
            if playing_time + time.perf_counter() - start >= seconds:
                page.evaluate("() => window.openenvPlayground.stop()")
            page.wait_for_timeout(50)
        playing_time += time.perf_counter() - start
        frames += page.evaluate(STEPS) - before
        episodes += 1
        if playing_time < seconds:  # the episode ended: start another one
            page.click("#oe-reset")
            page.wait_for_selector("#oe-stage .oe-stage[data-steps='0']", timeout=60_000)
    return frames / playing_time, frames, page.evaluate("() => window.benchPictures"), episodes


def playground_step_ms(label: str) -> float:
    """Server-side cost of one autoplay frame, in-process: random step, render, PNG, update."""
    import importlib

    from openenv.server import create_app
    from openenv.web.stage.html import quick_update

    module = importlib.import_module(PLAYGROUNDS[label][1])
    env_cls = next(
        v for k, v in vars(module).items() if k.endswith("Environment") and k != "Environment"
    )
    ctrl = create_app(env_cls).state.openenv.web["controller"]

    async def run() -> float:
        tab = ctrl.new_tab("bench")
        best = float("inf")
        for _ in range(5):
            await ctrl.reset(tab, {"seed": SEED})
            start = time.perf_counter()
            for _ in range(10):
                await ctrl.random_step(tab)
                quick_update(tab)  # what an autoplay call returns per frame
            best = min(best, (time.perf_counter() - start) / 10)
        await ctrl.close(tab)
        return best * 1000

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    parser.add_argument("--no-browser", action="store_true", help="skip the playground")
    args = parser.parse_args()
    print(f"# bench_frames ({os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})")
    bench_encodings(args.quick)
    bench_steps(args.quick)
    if not args.no_browser:
        bench_browser(args.quick)
    print(f"\nload average at the end: {statistics.fmean(os.getloadavg()):.1f}")


if __name__ == "__main__":
    main()
