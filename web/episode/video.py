"""Episodes as video: MP4 (H.264, by PyAV, the ``video`` extra) and GIF, from the playground's
frames or from an episode file (``openenv render run.jsonl -o run.mp4``).

A file's pictures are drawn by :mod:`openenv.web.drawing`, as the playground draws them: replayed
on the env the file names when it is installed here (its own ``render()``: boards, frames, SVG,
text), else read from each step's observation by the same rules that draw a remote server's
observations (:mod:`openenv.web.remote.rules`), or its fields as text (:func:`episode_pictures`).
Small frames are enlarged with nearest-neighbour scaling so pixels stay crisp. Encoding
reports its progress through a callback (the command's progress bar).
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from PIL import Image

from openenv.core.views import View
from openenv.web.drawing import to_image
from openenv.web.drawing.raster import PAPER
from openenv.web.episode.export import episode_gif
from openenv.web.episode.files import RecordedEpisode
from openenv.web.remote.rules import Rules

DEFAULT_FPS = 10.0
MIN_SIDE = 480  # frames smaller than this are scaled up by a whole factor
MAX_FRAMES = 100_000
Progress = Callable[[int, int], None]  # (frames done, frames in all)


class VideoUnavailable(RuntimeError):
    """MP4 needs PyAV: ``pip install "openenv-playground[video]"``."""


def env_fps(env: Any) -> float:
    """The frame rate ``env`` (an environment or its class) is watched at: its ``render_fps``
    when that is a number in (0, 240], else ``DEFAULT_FPS``."""
    fps = getattr(env, "render_fps", None)
    if isinstance(fps, bool) or not isinstance(fps, int | float) or not 0 < fps <= 240:
        return DEFAULT_FPS
    return float(fps)


@functools.cache
def video_available() -> bool:
    """Whether MP4 can be written here (PyAV is installed)."""
    return importlib.util.find_spec("av") is not None


def frames_of(steps: Iterable[dict[str, Any]]) -> Iterator[np.ndarray]:
    """The picture of each step of an episode file, read from its observation: its view by
    the remote rules (a frame, a board, an SVG, text), else its fields as text, as the
    stage lists them."""
    rules = Rules({})
    for step in steps:
        observation = step.get("observation") or {}
        image = to_image(rules.read(observation).view, observation=observation)
        if image is not None:
            yield np.asarray(image.convert("RGB"))


def episode_pictures(episode: RecordedEpisode) -> tuple[list[np.ndarray], str]:
    """The pictures of a recorded episode and how they were made.

    When the file names an env installed here and its reset options (what the typed client's
    recorder writes), the episode is replayed on that env and each step drawn by its own
    ``render()``: the very pictures its playground shows and exports, reset first. A replay
    that does not give back the recorded rewards and observations (an env that is not
    seeded, a different version) is dropped, and so is a file without them: then each step's
    observation is drawn (:func:`frames_of`)."""
    replayed = replay_views(episode)
    if replayed is not None:
        pictures = [to_image(view, observation=obs) for view, obs in replayed]
        kept = [np.asarray(p.convert("RGB")) for p in pictures if p is not None]
        if kept:
            return same_size(kept), f"replayed on {episode.env}"
    return same_size(list(frames_of(episode.steps))), "drawn from the recorded observations"


def replay_views(episode: RecordedEpisode) -> list[tuple[View | None, dict[str, Any]]] | None:
    """``(view, observation)`` after the reset and after each step of ``episode`` replayed on
    the env it names, or ``None`` when it cannot be replayed faithfully (see
    :func:`episode_pictures`)."""
    if not episode.env or episode.reset is None or not episode.steps:
        return None
    from openenv.core.errors import OpenEnvError
    from openenv.core.registry import find

    try:
        package = find(episode.env)
        env_cls, action_cls = package.environment_class(), package.action_class()
    except (OpenEnvError, ImportError):
        return None
    try:
        return asyncio.run(_replay(env_cls(), action_cls, episode))
    except Exception:
        return None


async def _replay(
    env: Any, action_cls: type, episode: RecordedEpisode
) -> list[tuple[View | None, dict[str, Any]]] | None:
    from openenv.core.serialization import model_from_wire, observation_to_wire

    try:
        obs = await env.reset_async(**(episode.reset or {}))
        views = [(env.render(), observation_to_wire(obs)["observation"])]
        for step in episode.steps:
            obs = await env.step_async(model_from_wire(step.get("action") or {}, action_cls))
            wire = observation_to_wire(obs)
            if not _same(wire, step):
                return None
            views.append((env.render(), wire["observation"]))
        return views
    finally:
        await env.close_async()


def _same(wire: dict[str, Any], step: dict[str, Any]) -> bool:
    """Whether a replayed step gave what the file recorded (reward, done, observation but
    its metadata)."""
    if bool(wire.get("done")) != bool(step.get("done")):
        return False
    reward, recorded = wire.get("reward"), step.get("reward")
    if (reward is None) != (recorded is None):
        return False
    if reward is not None and abs(float(reward) - float(recorded)) > 1e-9:
        return False
    plain = {k: v for k, v in (wire.get("observation") or {}).items() if k != "metadata"}
    kept = {k: v for k, v in (step.get("observation") or {}).items() if k != "metadata"}
    return plain == kept


def same_size(frames: list[np.ndarray]) -> list[np.ndarray]:
    """``frames`` on one canvas, the largest's size (smaller ones top left, on paper): a GIF
    or MP4 holds one size, and a text or board may grow over an episode."""
    if not frames:
        return frames
    height = max(f.shape[0] for f in frames)
    width = max(f.shape[1] for f in frames)
    if all(f.shape[:2] == (height, width) for f in frames):
        return frames
    out = []
    for frame in frames:
        canvas = np.empty((height, width, 3), np.uint8)
        canvas[:] = PAPER
        canvas[: frame.shape[0], : frame.shape[1]] = frame
        out.append(canvas)
    return out


def episode_mp4(
    frames: Sequence[np.ndarray], fps: float = DEFAULT_FPS, progress: Progress | None = None
) -> bytes | None:
    """An H.264 MP4 (yuv420p, plays in every browser) of ``frames``; ``None`` without frames."""
    if not frames:
        return None
    try:
        import av
    except ModuleNotFoundError:
        raise VideoUnavailable(
            'MP4 export needs PyAV: pip install "openenv-playground[video]"'
        ) from None
    first = _scaled(frames[0])
    height, width = (first.shape[0] + 1) // 2 * 2, (first.shape[1] + 1) // 2 * 2  # even sides
    buffer = io.BytesIO()
    with av.open(buffer, mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1000))
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"crf": "20", "preset": "veryfast"}
        for done, pixels in enumerate(frames[:MAX_FRAMES], start=1):
            canvas = np.zeros((height, width, 3), np.uint8)
            picture = _fit(_scaled(pixels), height, width)
            canvas[: picture.shape[0], : picture.shape[1]] = picture
            for packet in stream.encode(av.VideoFrame.from_ndarray(canvas, format="rgb24")):
                container.mux(packet)
            if progress is not None:
                progress(done, min(len(frames), MAX_FRAMES))
        for packet in stream.encode():
            container.mux(packet)
    return buffer.getvalue()


def episode_video(
    frames: Sequence[np.ndarray],
    kind: str,
    fps: float = DEFAULT_FPS,
    progress: Progress | None = None,
) -> bytes | None:
    """``kind`` ``"mp4"`` or ``"gif"`` of ``frames`` (``None`` when there are none)."""
    if kind == "mp4":
        return episode_mp4(frames, fps, progress)
    if kind == "gif":
        pngs = []
        for done, pixels in enumerate(frames[:MAX_FRAMES], start=1):
            out = io.BytesIO()
            Image.fromarray(pixels).save(out, format="PNG")
            pngs.append(out.getvalue())
            if progress is not None:
                progress(done, min(len(frames), MAX_FRAMES))
        return episode_gif(pngs, fps)
    raise ValueError(f"unknown video kind {kind!r}: use mp4 or gif")


def _scaled(pixels: np.ndarray) -> np.ndarray:
    factor = max(1, MIN_SIDE // max(pixels.shape[:2]))
    return pixels if factor == 1 else np.repeat(np.repeat(pixels, factor, 0), factor, 1)


def _fit(pixels: np.ndarray, height: int, width: int) -> np.ndarray:
    """``pixels`` within ``height`` × ``width`` (a later frame of another size is resized)."""
    if pixels.shape[0] <= height and pixels.shape[1] <= width:
        return pixels
    image = Image.fromarray(pixels)
    image.thumbnail((width, height), Image.Resampling.LANCZOS)
    return np.asarray(image)
