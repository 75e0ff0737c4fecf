"""Episodes as video: MP4 (H.264, by PyAV, the ``video`` extra) and GIF, from the playground's
frames or from an episode file (``openenv render run.jsonl -o run.mp4``).

A file's frames are read from each step's observation by the same rules that draw a remote
server's observations (:mod:`openenv.web.remote.rules`: our frame encodings, flat lists with a
``*_shape``, nested lists, base64 images), and boards are rasterised; steps with neither add no
frame. Small frames are enlarged with nearest-neighbour scaling so pixels stay crisp. Encoding
reports its progress through a callback (the command's progress bar).
"""

from __future__ import annotations

import functools
import importlib.util
import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from PIL import Image

from openenv.core.views import Board, Frame
from openenv.web.drawing import to_image
from openenv.web.episode.export import episode_gif
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
    """The picture of each step of an episode file that has one (a frame, or a board)."""
    rules = Rules({})
    for step in steps:
        view = rules.read(step.get("observation") or {}).view
        if isinstance(view, Frame):
            yield view.pixels
        elif isinstance(view, Board):
            image = to_image(view)
            if image is not None:
                yield np.asarray(image.convert("RGB"))


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
