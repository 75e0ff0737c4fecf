"""Rule 1: a frame, from the image encodings a remote sends (see the package's rules)."""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
import struct
import zlib
from typing import Any

import numpy as np
from PIL import Image

from openenv.core.frames import decode_frame
from openenv.core.views import Frame, View
from openenv.web.remote.rules.bounds import (
    ENCODINGS,
    FRAME_NAMES,
    MAX_BYTES,
    MAX_IMAGE_TEXT,
    MAX_SIDE,
    MIN_GRID,
    is_int,
    named,
)

# What decoding a hostile image or frame can raise (Pillow's plugins raise all of these).
_DECODE_ERRORS = (
    OSError, ValueError, SyntaxError, EOFError, struct.error, zlib.error,
    Image.DecompressionBombError,
)  # fmt: skip


def frame_view(obs: dict[str, Any], names: list[str]) -> tuple[View | None, tuple[str, ...]]:
    for name in names:
        pixels, used = _field_pixels(name, obs)
        if pixels is not None:
            return Frame(pixels), used
    return None, ()


def _field_pixels(name: str, obs: dict[str, Any]) -> tuple[np.ndarray | None, tuple[str, ...]]:
    value = obs[name]
    if isinstance(value, str):
        return _image(value), (name,)
    if isinstance(value, dict) and value.get("encoding") in ENCODINGS:
        return _encoded(value), (name,)
    if isinstance(value, list) and value:
        if isinstance(value[0], list):
            return _nested(value, named(name, FRAME_NAMES)), (name,)
        shape_name = f"{name}_shape"
        return _flat(value, obs.get(shape_name)), (name, shape_name)
    return None, ()


def _fits(height: int, width: int) -> bool:
    return 0 < height <= MAX_SIDE and 0 < width <= MAX_SIDE and height * width * 3 <= MAX_BYTES


def _flat(values: list[Any], shape: Any) -> np.ndarray | None:
    """A flat list of pixel values in the layout ``shape`` gives (``[H, W, 3]``, ``[H, W]``)."""
    if not isinstance(shape, list) or len(shape) not in (2, 3):
        return None
    if not all(is_int(n) for n in shape) or (len(shape) == 3 and shape[2] not in (1, 3, 4)):
        return None
    if not _fits(shape[0], shape[1]) or math.prod(shape) != len(values):
        return None
    array = _numbers(values)
    return None if array is None else _rgb(array.reshape(shape))


def _nested(rows: list[Any], named: bool) -> np.ndarray | None:
    """Rows of pixels: H×W×C lists, or an H×W grid when named like a frame or large enough."""
    first = rows[0]
    if not first or not _fits(len(rows), len(first)):
        return None
    grid = not isinstance(first[0], list)
    if grid and not named and min(len(rows), len(first)) < MIN_GRID:
        return None
    if not grid and len(first[0]) not in (1, 3, 4):
        return None
    array = _numbers(rows)
    if array is None or array.ndim != (2 if grid else 3):
        return None
    return _rgb(array)


def _numbers(values: list[Any]) -> np.ndarray | None:
    """Pixel values as ``uint8``: integers 0–255 as they are, floats within [0, 1] scaled; else
    ``None`` (ragged lists, other values, out of range)."""
    try:
        if type(_first_leaf(values)) is int:
            # The common case, converted straight to bytes (out of range raises OverflowError);
            # only 0s and 1s are looked at again, as they may be floats written without ".0".
            fast = np.asarray(values, dtype=np.uint8)
            if fast.size and fast.max() > 1:
                return fast
        array = np.asarray(values)
    except (ValueError, TypeError, OverflowError):
        return None
    if array.size == 0:
        return None
    if array.dtype.kind in "iu":
        return array.astype(np.uint8) if array.min() >= 0 and array.max() <= 255 else None
    if array.dtype.kind == "f" and array.min() >= 0 and array.max() <= 1:  # NaN fails both
        return np.rint(array * 255).astype(np.uint8)
    return None


def _first_leaf(values: Any) -> Any:
    for _ in range(4):
        if not isinstance(values, list) or not values:
            break
        values = values[0]
    return values


def _rgb(array: np.ndarray) -> np.ndarray | None:
    """``array`` (H×W, or H×W×1/3/4) as H×W×3 ``uint8``, or ``None`` when it is no image."""
    if array.dtype != np.uint8 or array.ndim not in (2, 3) or not _fits(*array.shape[:2]):
        return None
    if array.ndim == 3:
        channels = array.shape[2]
        if channels not in (1, 3, 4):
            return None
        array = array[:, :, 0] if channels == 1 else array[:, :, :3]
    if array.ndim == 2:
        return np.repeat(array[:, :, None], 3, axis=2)
    return np.ascontiguousarray(array)


_DATA_URL = re.compile(r"data:image/[a-z0-9.+-]+;base64,", re.IGNORECASE)
_BASE64_HEADS = ("iVBORw0KGgo", "/9j/")  # a PNG's and a JPEG's first bytes, in base64


def _image(text: str) -> np.ndarray | None:
    """The pixels of a base64 PNG or JPEG (or such a ``data:`` URL), else ``None``."""
    if len(text) > MAX_IMAGE_TEXT:
        return None
    body = text.strip()
    url = _DATA_URL.match(body)
    if url is not None:
        body = body[url.end() :]
    if not body.startswith(_BASE64_HEADS):
        return None
    body = "".join(body.split())  # base64 wrapped over lines
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _decoded(raw)


def _decoded(raw: bytes) -> np.ndarray | None:
    try:
        with Image.open(io.BytesIO(raw), formats=("PNG", "JPEG")) as image:
            width, height = image.size  # from the header: nothing is decoded yet
            if not _fits(height, width):
                return None
            return np.asarray(image.convert("RGB"), dtype=np.uint8)
    except _DECODE_ERRORS:
        return None


def _encoded(value: dict[str, Any]) -> np.ndarray | None:
    """One of this framework's frame encodings (a server of ours, or an episode file)."""
    try:
        array = decode_frame(value, max_bytes=MAX_BYTES)
    except _DECODE_ERRORS:
        return None
    return _rgb(np.asarray(array))
