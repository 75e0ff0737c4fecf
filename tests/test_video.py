"""Episodes as video: ``openenv render run.jsonl -o run.mp4`` on a file the client's recorder
wrote (frames in the wire encoding), GIF too, the playground's ⬇ MP4 of a board env, and clear
refusals of what cannot be rendered."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
import threading

import httpx
import numpy as np
import pytest
from grid_world_env.server.environment import GridWorldEnvironment
from PIL import Image
from pydantic import Field

from openenv.client import GenericEnvClient
from openenv.core import Action, Environment, Observation, State
from openenv.core.frames import FrameData, encode_frame
from openenv.server import create_app
from openenv.web.episode.jobs import Busy, Encoder
from openenv.web.episode.video import env_fps
from tests.servers import ROOT, served

av = pytest.importorskip("av", reason="the video extra (PyAV) is not installed")


class Move(Action):
    dx: int = Field(default=1, ge=-1, le=1)


class Screen(Observation):
    screen: FrameData | None = None


class Dot(Environment[Move, Screen, State]):
    """A dot crossing a 30×40 screen, one pixel a step; done after 12 steps."""

    def reset(self, seed=None, episode_id=None):
        self._x, self._t = 5, 0
        return self._observe()

    def step(self, action):
        self._x, self._t = self._x + action.dx, self._t + 1
        return self._observe(done=self._t >= 12)

    def _observe(self, done=False):
        pixels = np.zeros((30, 40, 3), np.uint8)
        pixels[10:14, self._x : self._x + 4] = [255, 0, 0]
        return Screen(screen=encode_frame(pixels), reward=0.0, done=done)

    @property
    def state(self):
        return State(step_count=self._t)


def render(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "openenv.cli", "render", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("video") / "run.jsonl"
    with (
        served(create_app(Dot, enable_web=False)) as url,
        GenericEnvClient(url).sync() as env,
        env.record(path),
    ):
        env.reset(seed=0)
        for _ in range(12):
            env.step({"dx": 1})
    return path


def decoded(data: bytes) -> list[np.ndarray]:
    with av.open(io.BytesIO(data)) as container:
        return [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]


def test_a_recorded_file_renders_as_an_mp4_a_browser_plays(recorded, tmp_path):
    out = tmp_path / "run.mp4"
    done = render(str(recorded), "-o", str(out), "--fps", "8")
    assert done.returncode == 0, done.stderr
    assert "12/12 frames" in done.stderr and "Wrote" in done.stdout + done.stderr
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264" and stream.codec_context.pix_fmt == "yuv420p"
        assert stream.average_rate == 8
    frames = decoded(out.read_bytes())
    assert len(frames) == 12
    assert frames[0].shape == (360, 480, 3)  # 30×40 enlarged 12 times, crisp
    red = [np.argwhere(f[:, :, 0] > 200)[:, 1].min() for f in frames]
    assert red == sorted(red) and red[-1] > red[0]  # the dot moves right, frame after frame


def test_the_same_file_as_a_gif(recorded, tmp_path):
    out = tmp_path / "run.gif"
    assert render(str(recorded), "-o", str(out)).returncode == 0
    with Image.open(out) as gif:
        assert gif.n_frames == 12


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["-o", "x.avi"], "must end in .mp4 or .gif"),
        (["-o", "x.mp4", "--episode", "3"], "holds 1 episode"),
        (["-o", "x.mp4", "--fps", "0"], "--fps"),
    ],
)
def test_what_cannot_be_rendered_is_refused_clearly(recorded, tmp_path, args, said):
    done = render(str(recorded), *args)
    assert done.returncode == 1 and said in done.stdout + done.stderr


def test_a_file_without_frames_is_drawn_and_one_not_an_episode_is_refused(tmp_path):
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"action": {}, "observation": {"n": 1}, "reward": 0, "done": true}\n')
    done = render(str(plain), "-o", str(tmp_path / "x.mp4"))
    assert done.returncode == 0 and "1 pictures" in done.stdout + done.stderr  # "n: 1" as text
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    done = render(str(junk), "-o", str(tmp_path / "x.mp4"))
    assert done.returncode == 1 and "junk.jsonl" in done.stdout + done.stderr


def test_the_playground_exports_a_board_episode_as_mp4():
    with served(create_app(GridWorldEnvironment)) as url, httpx.Client(base_url=url) as http:
        opened = http.post("/web/stage/open", json={}).json()
        for index in (1, 3, 1):  # Down, Right, Down
            assert http.post("/web/stage/act", json={"tab": opened["tab"], "index": index}).json()[
                "ok"
            ]
        html = http.post("/web/stage/redraw", json={"tab": opened["tab"]}).json()["html"]
        link = html.split('href="export/')[1].split("/", 1)[0]
        assert "episode.mp4" in html
        video = http.get(f"/web/export/{link}/episode.mp4")
        assert video.status_code == 200 and video.headers["content-type"] == "video/mp4"
        assert len(decoded(video.content)) == 4  # the first board and one per step
        with av.open(io.BytesIO(video.content)) as container:  # at grid world's render_fps
            assert container.streams.video[0].average_rate == GridWorldEnvironment.render_fps
        assert http.get(f"/web/export/{link}/progress").json() == {
            "state": "idle", "done": 0, "total": 0,
        }  # fmt: skip
        assert http.get("/web/export/nope/progress").status_code == 404


async def test_exports_are_bounded_one_per_tab_and_a_few_per_server():
    encoder = Encoder(running=1, waiting=1)
    release = threading.Event()

    def slow(progress):
        progress(1, 3)
        release.wait(30)
        return b"video"

    first = asyncio.create_task(encoder.run("a", slow))
    await wait_for(lambda: encoder.progress("a")["done"] == 1)
    assert encoder.progress("a") == {"state": "encoding", "done": 1, "total": 3}
    with pytest.raises(Busy, match="being made already"):
        await encoder.run("a", slow)
    second = asyncio.create_task(encoder.run("b", lambda progress: b"b"))
    await wait_for(lambda: encoder.progress("b")["state"] == "waiting")
    with pytest.raises(Busy, match="other videos"):
        await encoder.run("c", slow)
    release.set()
    assert await first == b"video" and await second == b"b"
    assert encoder.progress("a")["state"] == encoder.progress("b")["state"] == "idle"
    assert await encoder.run("c", lambda progress: None) is None  # room again


async def wait_for(condition, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met"
        await asyncio.sleep(0.01)


def test_an_env_watched_at_its_own_frame_rate():
    from atari_env.server.environment import AtariEnvironment

    assert env_fps(GridWorldEnvironment) == 4 and env_fps(AtariEnvironment) == 15
    assert env_fps(object()) == 10  # no render_fps: the default
    for bad in (0, -1, 1000, True, "fast"):
        assert env_fps(type("E", (), {"render_fps": bad})) == 10


def test_a_typed_clients_recording_renders_at_its_envs_frame_rate(tmp_path):
    from atari_env import AtariAction, AtariEnv
    from atari_env.server.environment import AtariEnvironment

    path = tmp_path / "pong.jsonl"
    with (
        served(create_app(AtariEnvironment)) as url,
        AtariEnv(base_url=url).sync() as env,
        env.record(str(path)),
    ):
        env.reset(seed=0)
        for _ in range(3):
            env.step(AtariAction(action_id=0))
    first = path.read_text().splitlines()[0]
    assert '"env": "atari"' in first.replace('":"', '": "')
    out = tmp_path / "pong.gif"
    done = render(str(path), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"at {AtariEnvironment.render_fps:g} fps" in done.stdout + done.stderr
