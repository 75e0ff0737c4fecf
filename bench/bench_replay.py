"""How fast the playground's timeline scrubs a long recorded episode.

Run: ``python bench/bench_replay.py [--steps 5000] [--picks 60]``

Records a Pong episode of ``--steps`` random steps with the typed client's recorder (frames in
the observations, in the wire's encoding), serves the Atari playground, loads the file in the
Rewards panel (📂 Inspect episode) of a headless Chromium (/usr/bin/chromium) and moves the
timeline slider to ``--picks`` random steps, as a drag does (an ``input`` event). Prints the
file's size, how long it took to open, and the time from each slider move to the recorded frame
of that step drawn in the panel: median and p90 (target: median within 50 ms). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import serve  # noqa: E402

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip
PANEL = "#oe-rewards .oe-review"


def record(url: str, steps: int, path: Path) -> None:
    """``steps`` random Pong steps, written as one episode (a game of Pong ends after about a
    thousand random steps: the games are recorded back to back and joined)."""
    from atari_env import AtariAction, AtariEnv

    rng = random.Random(0)
    with AtariEnv(base_url=url).sync() as env, env.record(str(path)):
        result = env.reset(seed=1)
        actions = len(result.observation.legal_actions)
        for _ in range(steps):
            if result.done:
                result = env.reset(seed=rng.randrange(1000))
            result = env.step(AtariAction(action_id=rng.randrange(actions)))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for n, line in enumerate(lines):
        line["episode"], line["done"] = 1, n == len(lines) - 1
        if n:
            line.pop("reset", None)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--picks", type=int, default=60)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with serve("atari_env.server.app:app") as url, tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "pong.jsonl")
        started = time.perf_counter()
        record(url, args.steps, path)
        print(f"recorded {args.steps} Pong steps in {time.perf_counter() - started:.1f} s: "
              f"{path.stat().st_size / 2**20:.1f} MiB")  # fmt: skip
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(120_000)
            page.goto(url + "/web/")
            page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
            page.get_by_role("tab", name="Rewards").click()
            page.wait_for_selector(PANEL)
            started = time.perf_counter()
            page.set_input_files(f"{PANEL} input.oe-inspect-file", str(path))
            page.wait_for_selector(f"{PANEL}[data-source^='file'] input.oe-rv-scrub")
            opened = time.perf_counter() - started
            count = int(page.get_attribute(PANEL, "data-steps"))
            print(f"opened in the Rewards panel in {opened * 1000:.0f} ms ({count} steps)")
            rng = random.Random(2)
            times = []
            for _ in range(args.picks):
                index = rng.randrange(count)
                times.append(page.evaluate(SCRUB, index))
            browser.close()
    times.sort()
    p90 = times[int(len(times) * 0.9)]
    print(f"slider move → that step's frame drawn: median {statistics.median(times):.1f} ms, "
          f"p90 {p90:.1f} ms over {len(times)} moves (target: median ≤ 50 ms)")  # fmt: skip


# Move the slider to `index` as a drag does and resolve with the ms until the panel shows that
# step's frame (the panel marks the step it shows in data-selected).
SCRUB = """(index) => new Promise((resolve) => {
  const panel = document.querySelector('#oe-rewards .oe-review');
  const slider = panel.querySelector('input.oe-rv-scrub');
  const started = performance.now();
  const done = () => {
    const box = document.querySelector('#oe-rewards .oe-review');
    if (box.dataset.selected === String(index) && box.querySelector('.oe-rv-view img')) {
      observer.disconnect();
      resolve(performance.now() - started);
    }
  };
  const observer = new MutationObserver(done);
  observer.observe(document.querySelector('#oe-rewards'), {
    subtree: true, childList: true, attributes: true,
  });
  slider.value = String(index);
  slider.dispatchEvent(new Event('input', { bubbles: true }));
})"""


if __name__ == "__main__":
    main()
