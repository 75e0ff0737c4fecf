"""Download an episode: JSONL (one line per step) and an animated GIF of its frames."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from typing import Any

from PIL import Image

from openenv.web.drawing.raster import PAPER
from openenv.web.episode.files import KEYS

GIF_MAX_SIDE = 480


def episode_jsonl(steps: Iterable[dict[str, Any]]) -> str:
    """One JSON object per line: ``action``, ``observation``, ``reward``, ``done``, and
    ``label`` (the button pressed) on steps that were a button press."""
    return "".join(json.dumps(_record(step), ensure_ascii=False) + "\n" for step in steps)


def _record(step: dict[str, Any]) -> dict[str, Any]:
    record = {k: step.get(k) for k in KEYS}
    if step.get("label"):
        record["label"] = step["label"]
    return record


def episode_gif(frames: Sequence[bytes], fps: float = 6.0) -> bytes | None:
    """An animated GIF from PNG frames (``None`` when there are none). Small frames are
    enlarged with nearest-neighbour scaling so pixels stay crisp."""
    if not frames:
        return None
    opened = [Image.open(io.BytesIO(png)).convert("RGB") for png in frames]
    images = [_scaled(image) for image in _one_size(opened)]
    buffer = io.BytesIO()
    images[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=max(20, int(1000 / fps)),
        loop=0,
        optimize=False,
    )
    return buffer.getvalue()


def _one_size(images: list[Image.Image]) -> list[Image.Image]:
    """The images on one canvas, the largest's size, top left on paper (a GIF is as large as
    its first frame: a text or a board that grows would be cut)."""
    width, height = max(i.width for i in images), max(i.height for i in images)
    if all(i.size == (width, height) for i in images):
        return images
    out = []
    for image in images:
        canvas = Image.new("RGB", (width, height), PAPER)
        canvas.paste(image, (0, 0))
        out.append(canvas)
    return out


def _scaled(image: Image.Image) -> Image.Image:
    factor = max(1, GIF_MAX_SIDE // max(image.size))
    if factor == 1:
        return image
    return image.resize((image.width * factor, image.height * factor), Image.Resampling.NEAREST)
