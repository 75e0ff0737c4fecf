"""Frames on the wire: every encoding gives the same pixels back; bad input says how to fix it."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from openenv.core import InvalidAction
from openenv.core.frames import (
    ENCODING_ENV_VAR,
    ENCODINGS,
    PaletteFrames,
    RowsFrame,
    decode_frame,
    encode_frame,
    resolve_encoding,
)

ROOT = Path(__file__).resolve().parent.parent


def pong_like_frame() -> np.ndarray:
    """A dark field, two paddles and a ball: the kind of frame Atari games draw."""
    frame = np.zeros((210, 160, 3), dtype=np.uint8)
    frame[:, :] = (144, 72, 17)
    frame[34:194, :] = (144, 72, 17)
    frame[90:106, 140:144] = (92, 186, 92)
    frame[60:76, 16:20] = (213, 130, 74)
    frame[120:124, 80:82] = (236, 236, 236)
    return frame


SHAPES = {
    "rgb": pong_like_frame(),
    "grayscale": np.arange(210 * 160, dtype=np.uint32).reshape(210, 160).astype(np.uint8),
    "ram": np.arange(128, dtype=np.uint8),
}


def to_json(wire):
    return json.loads(json.dumps(wire if isinstance(wire, list) else wire.model_dump()))


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_every_encoding_survives_json_and_gives_the_same_pixels(encoding, kind):
    array = SHAPES[kind]
    back = decode_frame(to_json(encode_frame(array, encoding)), list(array.shape))
    assert back.dtype == np.uint8 and back.shape == array.shape
    assert np.array_equal(back, array)


def test_the_encoded_object_names_its_encoding_and_shape():
    wire = encode_frame(pong_like_frame(), "zlib").model_dump()
    assert set(wire) == {"encoding", "shape", "data"}
    assert wire["encoding"] == "zlib" and wire["shape"] == [210, 160, 3]


def test_rows_sends_each_run_of_equal_rows_once_with_its_length():
    wire = to_json(encode_frame(pong_like_frame(), "rows"))
    assert set(wire) == {"encoding", "shape", "repeats", "data"}
    # rows 0-59 field, 60-75 left paddle, 76-89 field, 90-105 right paddle, ...
    assert wire["repeats"] == [60, 16, 14, 16, 14, 4, 86]
    sent = np.frombuffer(zlib.decompress(base64.b64decode(wire["data"])), dtype=np.uint8)
    assert sent.size == 7 * 160 * 3
    assert np.array_equal(
        np.repeat(sent.reshape(7, -1), wire["repeats"], axis=0).reshape(210, 160, 3),
        pong_like_frame(),
    )


@pytest.mark.parametrize(
    "array",
    [
        np.zeros((0, 160, 3), dtype=np.uint8),
        np.arange(7 * 5, dtype=np.uint8).reshape(7, 5),  # no two rows equal; odd row length
        np.ones((9, 3), dtype=np.uint8),  # one run
        np.arange(10, dtype=np.uint8),  # 1-D: one row
    ],
)
def test_rows_round_trips_edge_shapes(array):
    wire = encode_frame(array, "rows")
    assert sum(wire.repeats) == (array.shape[0] if array.ndim >= 2 else 1)
    back = decode_frame(to_json(wire))
    assert back.shape == array.shape and np.array_equal(back, array)


def test_a_rows_frame_whose_repeats_or_data_do_not_match_its_shape_is_refused():
    wire = to_json(encode_frame(pong_like_frame(), "rows"))
    with pytest.raises(ValueError, match="add up to 210"):
        decode_frame({**wire, "repeats": [*wire["repeats"][:-1], 1]})
    with pytest.raises(ValueError, match="rows of shape"):
        decode_frame({**wire, "shape": [210, 80, 3]})
    assert isinstance(RowsFrame.model_validate(wire).to_array(), np.ndarray)


def test_zlib_makes_an_atari_frame_about_a_hundred_times_smaller_than_raw():
    frame = pong_like_frame()
    zlib_size = len(encode_frame(frame, "zlib").data)
    raw_size = len(encode_frame(frame, "raw").data)
    list_size = len(json.dumps(encode_frame(frame, "list")))
    assert zlib_size * 50 < raw_size < list_size


def test_png_data_is_a_png_file_a_browser_can_show():
    data = base64.b64decode(encode_frame(pong_like_frame(), "png").data)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")


def test_a_flat_list_needs_the_shape_to_get_its_dimensions_back():
    flat = encode_frame(pong_like_frame(), "list")
    assert isinstance(flat, list) and len(flat) == 210 * 160 * 3
    assert decode_frame(flat).shape == (210 * 160 * 3,)
    assert decode_frame(flat, [210, 160, 3]).shape == (210, 160, 3)


def test_a_frame_whose_data_does_not_match_its_shape_is_refused():
    wire = encode_frame(pong_like_frame(), "raw").model_dump()
    wire["shape"] = [10, 10, 3]
    with pytest.raises(ValueError, match="needs 300"):
        decode_frame(wire)


def test_non_uint8_pixels_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="astype"):
        encode_frame(np.zeros((4, 4, 3), dtype=np.float32))


def test_encoding_names_are_checked_and_the_server_default_comes_from_the_environment(
    monkeypatch,
):
    monkeypatch.delenv(ENCODING_ENV_VAR, raising=False)
    assert resolve_encoding() == "rows"
    monkeypatch.setenv(ENCODING_ENV_VAR, "LIST")
    assert resolve_encoding() == "list"
    assert resolve_encoding("png") == "png"
    with pytest.raises(InvalidAction, match="rows, zlib, png, raw, list"):
        resolve_encoding("gif")


EXTRAS = {
    "atari_env": ("ale_py", "atari"),
    "gymnasium_env": ("gymnasium", "gymnasium"),
    "dm_control_env": ("dm_control", "dm_control"),
}

BLOCKED_IMPORTS = """
import importlib, sys
from pathlib import Path
from openenv.core.errors import EnvUnavailable
from openenv.core.registry import read_package
for package, module in {blocked!r}.items():
    sys.modules[module] = None  # as if the extra were not installed
for package in {blocked!r}:
    importlib.import_module(package)  # the client side imports without the extra
    try:
        importlib.import_module(package + ".server.environment")
    except ModuleNotFoundError as exc:
        print(package, "server:", exc.name)
    try:
        read_package(Path({envs!r}) / package).import_app()
    except EnvUnavailable as exc:
        print(package, "catalog:", exc)
"""


@pytest.fixture(scope="module")
def without_extras() -> list[str]:
    """What a user sees when none of the heavy extras is installed (one subprocess)."""
    blocked = {package: module for package, (module, _) in EXTRAS.items()}
    code = BLOCKED_IMPORTS.format(blocked=blocked, envs=str(ROOT / "envs"))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


@pytest.mark.parametrize("package", sorted(EXTRAS))
def test_missing_extra_message(without_extras, package):
    module, extra = EXTRAS[package]
    assert f"{package} server: {module}" in without_extras
    catalog = next(line for line in without_extras if line.startswith(f"{package} catalog:"))
    assert f"missing module {module!r}" in catalog
    assert f'pip install -e ".[{extra}]"' in catalog


def indexed_frames(count: int, seed: int = 0) -> tuple[np.ndarray, list[np.ndarray]]:
    """A random 256-colour palette and frames drawn with a dozen of its indices, as a game
    draws: blocks on a background."""
    rng = np.random.default_rng(seed)
    palette = rng.integers(0, 256, size=(256, 3), dtype=np.uint8)
    used = rng.choice(256, size=12, replace=False)
    frames = []
    for _ in range(count):
        indices = np.full((210, 160), rng.choice(used), dtype=np.uint8)
        for _ in range(4):
            top, left = rng.integers(0, 200), rng.integers(0, 150)
            indices[top : top + 10, left : left + 10] = rng.choice(used)
        frames.append(indices)
    return palette, frames


def test_palette_frames_encode_exactly_what_encoding_the_image_gives():
    palette, frames = indexed_frames(30)
    encoder, calls = PaletteFrames(), []

    def image_of(indices):
        def image():
            calls.append(1)
            return palette[indices]

        return image

    for indices in frames:
        wire = encoder.encode(indices, image_of(indices))
        assert to_json(wire) == to_json(encode_frame(palette[indices], "rows"))
        assert np.array_equal(decode_frame(to_json(wire)), palette[indices])
    # The image is made only for frames that show a colour not seen before.
    assert 1 <= len(calls) < len(frames)
    seen_again = encoder.encode(frames[0], lambda: pytest.fail("the colours are known"))
    assert np.array_equal(decode_frame(seen_again), palette[frames[0]])


def test_palette_frames_handle_one_channel_and_other_encodings():
    palette, frames = indexed_frames(3, seed=1)
    gray = palette[:, 0]
    encoder = PaletteFrames(channels=None)
    wire = encoder.encode(frames[0], lambda: gray[frames[0]])
    assert wire.shape == [210, 160]
    assert np.array_equal(decode_frame(wire), gray[frames[0]])
    png = PaletteFrames().encode(frames[1], lambda: palette[frames[1]], "png")
    assert png.encoding == "png" and np.array_equal(decode_frame(png), palette[frames[1]])


def test_palette_frames_refuse_an_image_that_does_not_match_the_indices():
    palette, frames = indexed_frames(1)
    with pytest.raises(ValueError, match="shape"):
        PaletteFrames().encode(frames[0], lambda: palette[frames[0]][:, :100])
