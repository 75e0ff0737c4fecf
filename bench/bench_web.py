"""Benchmark of the /web playground against the reference openenv==0.10.0 web UI.

Run: ``python bench/bench_web.py [--runs 5] [--clicks 20] [--ref-python PYTHON]``

Both servers run on loopback in the same run, driven by the same headless Chromium
(/usr/bin/chromium) through Playwright. Figures printed:

- page load to a usable Reset button (navigation start → a visible, enabled "Reset" button),
  median over fresh browser contexts; target: ours ≤ 0.7 × the reference. Ours is the fast
  shell's Reset (openenv/web/shell), which works before Gradio's bundle arrives; the time until the
  whole Gradio page is in place is printed too;
- click to updated board (an action button / the reference's "Legal actions" choice → the
  drawing changed in the DOM), median; target: ours ≤ the reference;
- autoplay of a 210×160 Frame environment: frames drawn per second in the browser (counted
  with a MutationObserver on the image); target ≥ 20;
- click to updated board through ``openenv playground URL`` (our playground in front of the
  same grid world server, over the network path: one more process and WebSocket hop) against
  that server's own playground, same run; target: proxied ≤ 1.3 × local.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from pydantic import Field

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from openenv.core import Action, ActionChoice, Environment, Frame, Observation, State  # noqa: E402
from tests.compat.ref_servers import openenv_playground  # noqa: E402
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402

# -- a 210×160 frame environment (the size of an Atari screen) --------------------------------


class PaddleAction(Action):
    move: int = Field(default=0, ge=-1, le=1, description="-1 up, 0 stay, +1 down")


class PaddleObservation(Observation):
    t: int = 0
    ball: list[int] = Field(default_factory=list)


class PaddleEnvironment(Environment[PaddleAction, PaddleObservation, State]):
    """A ball bouncing in a 210×160 RGB frame and a paddle; runs for 100 000 steps."""

    H, W = 210, 160

    def reset(self, seed=None, episode_id=None) -> PaddleObservation:
        self._state = State(episode_id=episode_id or "bench")
        self._ball = np.array([self.H // 2, self.W // 2])
        self._vel = np.array([3, 2])
        self._paddle = self.H // 2
        return self._observe()

    def step(self, action: PaddleAction) -> PaddleObservation:
        self._state.step_count += 1
        self._paddle = int(np.clip(self._paddle + 6 * action.move, 12, self.H - 12))
        self._ball += self._vel
        for axis, limit in ((0, self.H - 4), (1, self.W - 4)):
            if not 4 <= self._ball[axis] <= limit:
                self._vel[axis] *= -1
                self._ball[axis] = np.clip(self._ball[axis], 4, limit)
        return self._observe(done=self._state.step_count >= 100_000)

    @property
    def state(self) -> State:
        return self._state

    def render(self) -> Frame:
        pixels = np.zeros((self.H, self.W, 3), np.uint8)
        pixels[:, :] = (144, 72, 17)
        pixels[24:-14, :] = (0, 28, 92)
        y, x = self._ball
        pixels[y - 2 : y + 2, x - 1 : x + 1] = (236, 236, 236)
        pixels[self._paddle - 8 : self._paddle + 8, 140:144] = (92, 186, 92)
        return Frame(pixels)

    def legal_actions(self) -> list[ActionChoice]:
        return [
            ActionChoice("Up", {"move": -1}, key="ArrowUp"),
            ActionChoice("Stay", {"move": 0}, key=" "),
            ActionChoice("Down", {"move": 1}, key="ArrowDown"),
        ]

    def _observe(self, done: bool = False) -> PaddleObservation:
        return PaddleObservation(
            t=self._state.step_count, ball=[int(v) for v in self._ball], reward=0.0, done=done
        )


def frame_app():
    """uvicorn factory: the frame environment's server."""
    from openenv.server import create_app

    return create_app(PaddleEnvironment, env_name="paddle")


# -- the reference's grid world (same rules as envs/grid_world_env) ----------------------------

REFERENCE_GRID = textwrap.dedent(
    """
    import uuid
    from typing import Literal
    from openenv.core.env_server import create_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State

    MOVES = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1)}

    class GridAction(Action):
        action: Literal["UP", "DOWN", "LEFT", "RIGHT"]

    class GridObservation(Observation):
        x: int = 0
        y: int = 0
        message: str = ""

    class GridEnv(Environment):
        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self):
            super().__init__()
            self._state = State(episode_id=str(uuid.uuid4()))
            self.x = self.y = 0

        def reset(self, seed=None, episode_id=None, **kwargs):
            self._state = State(episode_id=episode_id or str(uuid.uuid4()))
            self.x = self.y = 0
            return GridObservation(message="Welcome to Grid World!", reward=0.0)

        def step(self, action, **kwargs):
            dx, dy = MOVES[action.action]
            self.x = min(max(self.x + dx, 0), 4)
            self.y = min(max(self.y + dy, 0), 4)
            self._state.step_count += 1
            done = (self.x, self.y) == (4, 4)
            return GridObservation(x=self.x, y=self.y, message="moved", done=done,
                                   reward=1.0 if done else -0.1)

        @property
        def state(self):
            return self._state

        def render_web(self, observation):
            x, y = observation.get("x", 0), observation.get("y", 0)
            rows = "".join(
                "<tr>" + "".join(
                    f"<td style='width:40px;height:40px;text-align:center'>"
                    f"{'A' if (r, c) == (x, y) else ('G' if (r, c) == (4, 4) else '')}</td>"
                    for c in range(5)) + "</tr>"
                for r in range(5))
            return f"<table class='ref-board'>{rows}</table>"

        def web_actions(self, observation):
            return [(m.title(), {"action": m}) for m in MOVES]

    app = create_app(GridEnv, GridAction, GridObservation, env_name="grid_world")
    """
)


@contextlib.contextmanager
def reference_server(python: str) -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "refgrid.py").write_text(REFERENCE_GRID)
        env = {"ENABLE_WEB_INTERFACE": "true", "PYTHONPATH": folder}
        with serve_with(python, "refgrid:app", env, Path(folder)) as url:
            yield url


@contextlib.contextmanager
def serve_with(python: str, app: str, env: dict[str, str], cwd: Path) -> Iterator[str]:
    from tests.conftest import free_port, stop_process_group, wait_healthy

    port = free_port()
    cmd = [python, "-m", "uvicorn", app, "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(cmd, env={**os.environ, **env}, cwd=cwd, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=180)
        yield url
    finally:
        stop_process_group(proc)


# -- measurements ----------------------------------------------------------------------------

RESET_READY = """() => {
  const b = [...document.querySelectorAll('button')].find((b) => /Reset/.test(b.textContent));
  return b && !b.disabled && b.offsetParent !== null ? performance.now() : null;
}"""

# Both clicks alternate Down and Up from the top-left corner, and wait until the agent is
# drawn on the expected row (Down → row 1, Up → row 0).
CLICK = """async ([i, cells, agent, buttons]) => {
  const label = i % 2 ? 'Up' : 'Down';
  const expected = i % 2 ? 0 : 1;
  const isAgent = agent.startsWith('text:')
    ? (c) => c.textContent === agent.slice(5) : (c) => c.matches(agent);
  const row = () => {
    const all = [...document.querySelectorAll(cells)];
    const k = all.findIndex(isAgent);
    return k < 0 ? -1 : Math.floor(k / 5);
  };
  const target = [...document.querySelectorAll(buttons)]
    .find((b) => b.textContent.trim().includes(label));
  const t0 = performance.now();
  target.click();
  await new Promise((done) => {
    const obs = new MutationObserver(() => {
      if (row() === expected) { obs.disconnect(); done(); }
    });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return performance.now() - t0;
}"""
OURS = ["#oe-stage .oe-board .oe-cell", "[title=agent]", "#oe-stage button.oe-act"]
REFERENCE = [".oe-visual td", "text:A", ".oe-actions label"]

COUNT_FRAMES = """async (seconds) => {
  const stage = document.querySelector('#oe-stage');
  let frames = 0, last = null;
  const obs = new MutationObserver(() => {
    const img = stage.querySelector('img.oe-frame');
    if (img && img.src !== last) { last = img.src; frames++; }
  });
  obs.observe(stage, { subtree: true, childList: true, attributes: true });
  await new Promise((r) => setTimeout(r, seconds * 1000));
  obs.disconnect();
  return frames / seconds;
}"""


# Ours only: the whole Gradio page in place (its stage drawn, the fast shell stepped aside).
GRADIO_READY = """() => document.querySelector('#oe-stage .oe-stage[data-tab]') &&
  !document.getElementById('oe-shell') ? performance.now() : null"""


def load_times(browser, url: str, runs: int, full: list[float] | None = None) -> list[float]:
    """Navigation start → a usable Reset, per fresh context; with ``full``, also appends the
    time until the whole Gradio page is in place."""
    times = []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(url + "/web/", wait_until="commit")
        times.append(page.wait_for_function(RESET_READY, timeout=60_000).json_value())
        if full is not None:
            full.append(page.wait_for_function(GRADIO_READY, timeout=60_000).json_value())
        context.close()
    return times


def click_times(browser, url: str, clicks: int, selectors: list[str]) -> list[float]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url + "/web/")
    page.wait_for_selector("button:has-text('Reset')", timeout=60_000)
    if selectors is REFERENCE:  # the reference draws nothing before its first reset
        page.click("button:has-text('Reset')")
    page.wait_for_selector(selectors[2], timeout=60_000)
    page.evaluate(CLICK, [0, *selectors])  # warm up
    page.evaluate(CLICK, [1, *selectors])
    times = [page.evaluate(CLICK, [i, *selectors]) for i in range(clicks)]
    context.close()
    return times


def autoplay_fps(browser, url: str, seconds: float = 5.0) -> float:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(url + "/web/")
    page.wait_for_selector("#oe-stage img.oe-frame", timeout=60_000)
    page.click("#oe-play-fps label:has-text('60')")
    page.fill("#oe-play-steps :is(input, textarea)", "0")
    page.click("#oe-play")
    time.sleep(0.5)
    fps = page.evaluate(COUNT_FRAMES, seconds)
    page.click("#oe-stop")
    context.close()
    return fps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="page loads per server")
    parser.add_argument("--clicks", type=int, default=20, help="timed clicks per server")
    parser.add_argument("--ref-python", help="default: the cached reference virtualenv")
    args = parser.parse_args()
    if args.ref_python is None:
        sys.path.insert(0, str(ROOT / "tests" / "compat"))
        from refvenv import ensure_ref_venv

        args.ref_python = str(ensure_ref_venv())

    from playwright.sync_api import sync_playwright

    with (
        sync_playwright() as pw,
        serve("grid_world_env.server.app:app") as ours,
        serve("bench.bench_web:frame_app", args=["--factory"]) as frames,
        reference_server(args.ref_python) as reference,
        openenv_playground(ours) as proxied,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        load_times(browser, ours, 1)  # warm both servers (first render, imports)
        load_times(browser, reference, 1)
        ours_full: list[float] = []
        ours_load = load_times(browser, ours, args.runs, ours_full)
        ref_load = load_times(browser, reference, args.runs)
        ours_click = click_times(browser, ours, args.clicks, OURS)
        ref_click = click_times(browser, reference, args.clicks, REFERENCE)
        proxied_click = click_times(browser, proxied, args.clicks, OURS)
        local_click = click_times(browser, ours, args.clicks, OURS)  # again, next to it
        fps = autoplay_fps(browser, frames)
        browser.close()

    report("page load → usable Reset (ms)", ours_load, ref_load, target=0.7)
    median, low, high = statistics.median(ours_full), min(ours_full), max(ours_full)
    print(
        f"  ours, whole Gradio page in place (shell stepped aside): median {median:.0f} ms "
        f"(min {low:.0f}, max {high:.0f})"
    )
    report("click → updated board (ms)", ours_click, ref_click, target=1.0)
    print(f"autoplay, 210×160 Frame env: {fps:.1f} frames/s in the browser (target ≥ 20)")
    mp, ml = statistics.median(proxied_click), statistics.median(local_click)
    print(
        f"click → updated board through `openenv playground`: median {mp:.0f} ms "
        f"(min {min(proxied_click):.0f}, max {max(proxied_click):.0f}); the same server's own "
        f"playground {ml:.0f} ms; ratio {mp / ml:.2f} (target ≤ 1.3) "
        f"{'OK' if mp <= 1.3 * ml else 'MISSED'}"
    )


def report(name: str, ours: list[float], reference: list[float], target: float) -> None:
    mo, mr = statistics.median(ours), statistics.median(reference)
    verdict = "OK" if mo <= target * mr else "MISSED"
    print(
        f"{name}: ours median {mo:.0f} (min {min(ours):.0f}, max {max(ours):.0f}); "
        f"reference median {mr:.0f} (min {min(reference):.0f}, max {max(reference):.0f}); "
        f"ratio {mo / mr:.2f} (target ≤ {target}) {verdict}"
    )


if __name__ == "__main__":
    main()
