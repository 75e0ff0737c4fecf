"""Frames on the wire: a compact, documented encoding for images and other ``uint8`` arrays.

An observation field typed :data:`FrameData` carries an array (an H×W×3 RGB frame, an H×W
grayscale screen, a 128-byte RAM dump…) in one of five encodings:

``"rows"`` (the default)
    ``{"encoding": "rows", "shape": [h, w, 3], "repeats": [r0, r1, ...], "data": "<base64>"}``.
    The array is cut into rows along its first axis (a 1-D array is one row); each run of
    identical consecutive rows is sent once, and ``repeats`` says how many times each sent row
    stands (``sum(repeats) == h``). ``data`` is the base64 of ``zlib.compress(rows, 1)`` where
    ``rows`` are the sent rows' bytes, C order. To decode: inflate, reshape to
    ``(len(repeats), -1)``, repeat row ``i`` ``repeats[i]`` times, reshape to ``shape``
    (``np.repeat(rows, repeats, axis=0)``). Atari screens are mostly runs of equal rows (a
    Pong frame has about 14 distinct runs out of 210 rows), so this compresses a few KB
    instead of 100 KB and inflates a few KB instead of 100 KB: several times cheaper on both
    sides than ``"zlib"``, for the same or smaller size (see ``bench/bench_frames.py``).
``"zlib"``
    ``{"encoding": "zlib", "shape": [h, w, 3], "data": "<base64>"}`` where ``data`` is the
    base64 of ``zlib.compress(array.tobytes(), 1)``, C order. Atari frames compress about 100×
    (a Pong frame is ~1 KB).
``"png"``
    Same object as ``"zlib"`` with ``"encoding": "png"`` and the base64 of a PNG file (RGB, or
    grayscale for 2-D arrays; a 1-D array is stored as a 1×N image; see :func:`png_bytes`). A
    browser can show ``"data:image/png;base64," + data`` as it is.
``"raw"``
    Same object as ``"zlib"`` with the base64 of the uncompressed bytes.
``"list"``
    A flat JSON list of integers (row-major), the layout the reference Atari client reads
    (``np.array(screen).reshape(screen_shape)``). Largest and slowest; ask for it only for
    compatibility.

Servers pick the encoding per episode (environments take a ``frame_encoding`` reset option);
``$OPENENV_FRAME_ENCODING`` changes the default for a whole server. Clients call
:func:`decode_frame` to get the ``numpy`` array back, whatever the encoding. A screen kept as
palette indices (an emulator's) can be encoded without building its image: see
:class:`PaletteFrames`.
"""

from __future__ import annotations

import base64
import io
import math
import os
import struct
import zlib
from typing import Literal, cast

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from openenv.core.errors import InvalidAction

Encoding = Literal["rows", "zlib", "png", "raw", "list"]
ENCODINGS: tuple[str, ...] = ("rows", "zlib", "png", "raw", "list")
DEFAULT_ENCODING = "rows"
ENCODING_ENV_VAR = "OPENENV_FRAME_ENCODING"
ZLIB_LEVEL = 1
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class EncodedFrame(BaseModel):
    """A ``uint8`` array as base64 text: ``{"encoding", "shape", "data"}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    encoding: Literal["zlib", "png", "raw"] = Field(description="How data was made")
    shape: list[int] = Field(description="Array shape, e.g. [210, 160, 3]")
    data: str = Field(description="Base64 of the encoded bytes")

    def to_array(self) -> np.ndarray:
        """The decoded ``uint8`` array."""
        return decode_frame(self)


class RowsFrame(BaseModel):
    """A ``uint8`` array as its distinct consecutive rows: ``{"encoding": "rows", ...}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    encoding: Literal["rows"] = Field(description="Always 'rows'")
    shape: list[int] = Field(description="Array shape, e.g. [210, 160, 3]")
    repeats: list[int] = Field(description="How many times each sent row stands, top to bottom")
    data: str = Field(description="Base64 of the zlib-compressed bytes of the sent rows")

    def to_array(self) -> np.ndarray:
        """The decoded ``uint8`` array."""
        return decode_frame(self)


FrameData = RowsFrame | EncodedFrame | list[int]
"""The type of an observation field that carries a frame."""


def resolve_encoding(name: str | None = None) -> str:
    """Validate an encoding name; ``None`` means ``$OPENENV_FRAME_ENCODING`` or ``"rows"``."""
    chosen = name if name is not None else os.environ.get(ENCODING_ENV_VAR) or DEFAULT_ENCODING
    chosen = str(chosen).strip().lower()
    if chosen not in ENCODINGS:
        raise InvalidAction(
            f"unknown frame encoding {chosen!r}; use one of: {', '.join(ENCODINGS)} "
            f"(as the frame_encoding reset option or ${ENCODING_ENV_VAR})"
        )
    return chosen


def encode_frame(array: np.ndarray, encoding: str = DEFAULT_ENCODING) -> FrameData:
    """Encode a ``uint8`` array for the wire (see the module docstring for the formats)."""
    pixels = np.ascontiguousarray(array)
    if pixels.dtype != np.uint8:
        raise ValueError(f"frames must be uint8 arrays, got {pixels.dtype}; use .astype(np.uint8)")
    if encoding == "list":
        return pixels.ravel().tolist()
    if encoding == "rows":
        rows, repeats = distinct_rows(pixels)
        return _rows_frame(rows, repeats, list(pixels.shape))
    if encoding == "zlib":
        payload = zlib.compress(pixels.tobytes(), ZLIB_LEVEL)
    elif encoding == "png":
        payload = png_bytes(pixels)
    elif encoding == "raw":
        payload = pixels.tobytes()
    else:
        raise ValueError(f"unknown frame encoding {encoding!r}; use one of {ENCODINGS}")
    data = base64.b64encode(payload).decode("ascii")
    kind = cast(Literal["zlib", "png", "raw"], encoding)  # the branches above checked it
    return EncodedFrame.model_construct(encoding=kind, shape=list(pixels.shape), data=data)


class PaletteFrames:
    """Encodes the frames of a screen drawn in palette indices, without building each image.

    Emulators such as ALE keep the screen as one palette index per pixel and make the RGB
    (or grayscale) image on request: for a Pong frame that lookup costs more than the
    ``"rows"`` encoding itself. Runs of identical index rows are runs of identical image rows,
    so :meth:`encode` finds the runs on the indices (a third of the bytes of an RGB frame)
    and looks up the colours of the distinct rows only. The palette is learnt from the real
    image: the first time a row holds an index not seen yet, ``image()`` is called for the
    current frame and every pixel of it teaches the colour of its index. So the output always
    decodes to exactly the image ``image()`` returns, whatever the emulator's palette.

    One instance per screen (a palette belongs to one emulator and one kind of image).
    Encodings other than ``"rows"`` need the whole image and call ``image()``.
    """

    def __init__(self, channels: int | None = 3) -> None:
        tail = () if channels is None else (channels,)
        self._colours = np.zeros((256, *tail), dtype=np.uint8)
        self._known = np.zeros(256, dtype=bool)

    def encode(self, indices: np.ndarray, image, encoding: str = DEFAULT_ENCODING) -> FrameData:
        """Encode the image of ``indices`` (an H×W ``uint8`` array of palette indices).

        ``image`` is a no-argument callable that returns the real image of the same frame
        (H×W×channels, or H×W for a one-channel palette made with ``channels=None``).
        """
        if encoding != "rows" or indices.ndim != 2:
            return encode_frame(image(), encoding)
        rows, repeats = distinct_rows(np.ascontiguousarray(indices, dtype=np.uint8))
        if not np.take(self._known, rows).all():  # take: several times faster than [rows]
            self._learn(indices, image())
        pixels = np.take(self._colours, rows, axis=0)
        return _rows_frame(pixels, repeats, [*indices.shape, *self._colours.shape[1:]])

    def _learn(self, indices: np.ndarray, image: np.ndarray) -> None:
        expected = (*indices.shape, *self._colours.shape[1:])
        if image.shape != expected:
            raise ValueError(f"the image has shape {image.shape}; the indices need {expected}")
        flat = indices.reshape(-1)
        self._colours[flat] = image.reshape(flat.size, *self._colours.shape[1:])
        self._known[flat] = True


def decode_frame(
    obj: FrameData | dict,
    shape: list[int] | tuple[int, ...] | None = None,
    max_bytes: int | None = None,
):
    """Turn a wire frame back into a ``uint8`` numpy array.

    ``obj`` is a :class:`RowsFrame` or an :class:`EncodedFrame`, its JSON dict, or a flat list
    of integers; a flat list needs ``shape`` (e.g. the Atari observation's ``screen_shape``) to
    get its dimensions back. ``max_bytes`` bounds the decoded array for frames from a peer
    nobody vouches for: a larger shape is refused (``ValueError``) before anything is
    inflated, and no compressed stream is inflated past it.
    """
    if isinstance(obj, dict):
        kind = RowsFrame if obj.get("encoding") == "rows" else EncodedFrame
        obj = kind.model_validate(obj)
    if isinstance(obj, list | tuple | np.ndarray):
        flat = np.asarray(obj, dtype=np.uint8)
        return flat.reshape(shape) if shape is not None else flat
    if not isinstance(obj, RowsFrame | EncodedFrame):
        raise TypeError(f"decode_frame needs an EncodedFrame, a dict or a list, got {type(obj)}")
    if any(n < 0 for n in obj.shape) or (
        max_bytes is not None and math.prod(obj.shape) > max_bytes
    ):
        raise ValueError(f"frame shape {obj.shape} is larger than {max_bytes} bytes allowed")
    if isinstance(obj, RowsFrame):
        return _from_rows(obj)
    raw = base64.b64decode(obj.data)
    if obj.encoding == "png":
        return _from_png(raw, obj.shape)
    if obj.encoding == "zlib":
        raw = _inflate(raw, math.prod(obj.shape))
    expected = math.prod(obj.shape)
    if len(raw) != expected:
        raise ValueError(
            f"frame data holds {len(raw)} bytes but shape {obj.shape} needs {expected}"
        )
    return np.frombuffer(raw, dtype=np.uint8).reshape(obj.shape)


def _rows_frame(rows: np.ndarray, repeats: list[int], shape: list[int]) -> RowsFrame:
    """The ``"rows"`` wire object of the distinct ``rows`` (C order) and their run lengths."""
    data = base64.b64encode(zlib.compress(rows.tobytes(), ZLIB_LEVEL)).decode("ascii")
    return RowsFrame.model_construct(encoding="rows", shape=shape, repeats=repeats, data=data)


def distinct_rows(pixels: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The runs of identical consecutive rows of a C-contiguous ``uint8`` array.

    Returns the first row of each run (an ``n × row_bytes`` array) and the run lengths. Rows
    are along the first axis; a 0-D or 1-D array is one row.
    """
    height = pixels.shape[0] if pixels.ndim >= 2 else 1
    if height == 0:
        return pixels.reshape(0, 0), []
    rows = pixels.reshape(height, -1)
    if height == 1:
        return rows, [1]
    # Compare rows a machine word at a time: XOR neighbours, OR each row's words together.
    word = next(size for size in (8, 4, 2, 1) if rows.shape[1] % size == 0)
    words = rows.view(f"<u{word}")
    changed = np.bitwise_or.reduce(words[1:] ^ words[:-1], axis=1)
    starts = [0, *(changed.nonzero()[0] + 1).tolist()]
    repeats = [end - start for start, end in zip(starts, [*starts[1:], height], strict=True)]
    return rows[starts], repeats


def _from_rows(frame: RowsFrame) -> np.ndarray:
    shape, repeats = frame.shape, frame.repeats
    height = shape[0] if len(shape) >= 2 else 1
    size = math.prod(shape)
    if sum(repeats) != height or (repeats and min(repeats) < 1):
        raise ValueError(f"rows frame repeats {repeats} must be >= 1 and add up to {height}")
    row_bytes = size // height if height else 0
    raw = _inflate(base64.b64decode(frame.data), len(repeats) * row_bytes) if repeats else b""
    if len(raw) != len(repeats) * row_bytes:
        raise ValueError(
            f"frame data holds {len(raw)} bytes but {len(repeats)} rows of shape {shape} "
            f"need {len(repeats) * row_bytes}"
        )
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(len(repeats), row_bytes)
    return np.repeat(rows, repeats, axis=0).reshape(shape)


def _inflate(data: bytes, expected: int) -> bytes:
    """``zlib.decompress(data)``, stopping one byte past ``expected`` (a stream that inflates
    to more is wrong anyway, and is never inflated whole)."""
    return zlib.decompressobj().decompress(data, expected + 1)


def png_bytes(pixels: np.ndarray) -> bytes:
    """A PNG file of a ``uint8`` HxWx3 (RGB) or HxW (grayscale) array; 1-D becomes 1xN.

    Rows are stored unfiltered and deflated at level 1: a few times faster than Pillow's
    encoder for the same size on rendered frames (flat colours, long runs).
    """
    pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
    if pixels.ndim == 1:
        pixels = pixels.reshape(1, -1)
    if pixels.ndim not in (2, 3) or (pixels.ndim == 3 and pixels.shape[2] != 3):
        raise ValueError(f"png frames need HxW or HxWx3 arrays, got shape {pixels.shape}")
    height, width = pixels.shape[:2]
    rows = np.zeros((height, 1 + pixels[0].size), dtype=np.uint8)  # filter byte 0: none
    rows[:, 1:] = pixels.reshape(height, -1)
    colour = 2 if pixels.ndim == 3 else 0
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return b"".join(
        (
            PNG_SIGNATURE,
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), ZLIB_LEVEL)),
            _png_chunk(b"IEND", b""),
        )
    )


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data)
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _from_png(raw: bytes, shape: list[int]) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(raw)) as image:
        width, height = image.size  # read from the header: nothing is decoded yet
        expected = (1, shape[0]) if len(shape) == 1 else tuple(shape[:2])
        if (height, width) != expected:
            raise ValueError(f"the PNG is {height}×{width}, the frame's shape says {shape}")
        return np.asarray(image, dtype=np.uint8).reshape(shape)
