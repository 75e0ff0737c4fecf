"""``openenv render`` draws what the playground draws: the README's grid-world quick start,
recorded by the typed client, becomes a GIF of the same boards the page's GIF export shows;
an SVG env's episode is rasterised, a text env's drawn; a file with no env is drawn from its
observations."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import pytest
from grid_world_env import GridWorldAction, GridWorldEnv
from grid_world_env.server.environment import GridWorldEnvironment
from PIL import Image

from openenv.server import create_app
from openenv.web.episode.files import parse_episodes_jsonl
from openenv.web.episode.video import episode_pictures
from tests.servers import ROOT, served

QUICK_START = ["DOWN"] * 4 + ["RIGHT"] * 4
AGENT = (219, 234, 254)  # the agent's square (#dbeafe)


def render(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "openenv.cli", "render", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


def gif_frames(data: bytes) -> list[np.ndarray]:
    frames = []
    with Image.open(io.BytesIO(data)) as gif:
        for n in range(gif.n_frames):
            gif.seek(n)
            frames.append(np.asarray(gif.convert("RGB")))
    return frames


def agent_square(frame: np.ndarray, cells: int = 5) -> tuple[int, int]:
    """(row, col) of the square painted in the agent's colour."""
    side = frame.shape[0] // cells
    for r in range(cells):
        for c in range(cells):
            pixel = frame[r * side + 3, c * side + 3]
            if np.abs(pixel.astype(int) - AGENT).max() <= 8:
                return r, c
    raise AssertionError("no agent on this board")


@pytest.fixture(scope="module")
def quick_start(tmp_path_factory) -> Path:
    """The README's client quick start, recorded by the typed client."""
    path = tmp_path_factory.mktemp("render") / "grid.jsonl"
    with served(create_app(GridWorldEnvironment)) as url:
        with GridWorldEnv(base_url=url) as env, env.record(path):
            env.reset(seed=42)
            for move in QUICK_START:
                result = env.step(GridWorldAction(action=move))
        assert result.reward == 1.0 and result.done
    return path


def test_the_readme_quick_start_renders_as_a_gif_of_its_boards(quick_start, tmp_path):
    out = tmp_path / "grid.gif"
    done = render(str(quick_start), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "replayed on grid_world" in done.stdout + done.stderr
    frames = gif_frames(out.read_bytes())
    assert len(frames) == 1 + len(QUICK_START)  # the reset's board, then one per step
    walk = [agent_square(f) for f in frames[:-1]]
    assert walk == [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (4, 1), (4, 2), (4, 3)]
    # The last board shows the robot on the goal; its square is no longer the goal's green.
    assert agent_square(frames[-1]) == (4, 4)


def test_render_draws_the_same_pictures_as_the_pages_gif_export(quick_start, tmp_path):
    out = tmp_path / "grid.gif"
    assert render(str(quick_start), "-o", str(out)).returncode == 0
    with served(create_app(GridWorldEnvironment)) as url, httpx.Client(base_url=url) as http:
        tab = http.post("/web/stage/open", json={}).json()["tab"]
        for move in QUICK_START:
            index = {"UP": 0, "DOWN": 1, "LEFT": 2, "RIGHT": 3}[move]
            assert http.post("/web/stage/act", json={"tab": tab, "index": index}).json()["ok"]
        html = http.post("/web/stage/redraw", json={"tab": tab}).json()["html"]
        link = html.split('href="export/')[1].split("/", 1)[0]
        page = http.get(f"/web/export/{link}/episode.gif")
    assert page.status_code == 200
    ours, theirs = gif_frames(out.read_bytes()), gif_frames(page.content)
    assert len(ours) == len(theirs)
    assert all(np.array_equal(a, b) for a, b in zip(ours, theirs, strict=True))


def test_a_file_without_its_env_is_drawn_from_its_observations(quick_start, tmp_path):
    # The same steps, without the line that names the env: no replay, each observation drawn.
    records = [json.loads(line) for line in quick_start.read_text().splitlines()]
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps({**r, "env": None}) + "\n" for r in records))
    (episode,) = parse_episodes_jsonl(plain.read_bytes())
    assert episode.env is None
    pictures, how = episode_pictures(episode)
    assert how == "drawn from the recorded observations"
    assert len(pictures) == len(QUICK_START)
    assert len({p.shape for p in pictures}) == 1  # one canvas for the whole video


def test_an_svg_env_is_rasterised(tmp_path):
    pytest.importorskip("chess")
    from chess_env import ChessAction, ChessEnv
    from chess_env.server.environment import ChessEnvironment

    path = tmp_path / "chess.jsonl"
    with (
        served(create_app(ChessEnvironment, enable_web=False)) as url,
        ChessEnv(base_url=url) as env,
        env.record(path),
    ):
        first = env.reset(seed=1).observation
        env.step(ChessAction(move=first.legal_moves[0]))
    (episode,) = parse_episodes_jsonl(path.read_bytes())
    pictures, how = episode_pictures(episode)
    assert how == "replayed on chess" and len(pictures) == 2
    before, after = pictures
    assert before.shape[0] >= 300 and before.std() > 20  # a drawn board, not a blank page
    assert not np.array_equal(before, after)  # the pawn moved


def test_text_and_plain_fields_are_drawn_emoji_in_colour(tmp_path):
    path = tmp_path / "chat.jsonl"
    steps = [
        {"action": {}, "observation": {"prompt": "Say hi 🤖"}, "reward": 0, "done": False},
        {"action": {}, "observation": {"n": 3}, "reward": 1, "done": True},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))
    out = tmp_path / "chat.gif"
    done = render(str(path), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    first, second = gif_frames(out.read_bytes())
    spread = first.astype(int).max(axis=2) - first.astype(int).min(axis=2)
    assert spread.max() > 80  # the robot is drawn in colour, not as a grey box
    assert not np.array_equal(first, second)  # "n: 3" drawn as the second picture
