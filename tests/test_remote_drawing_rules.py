"""The rules that draw a remote server's observations (openenv.web.remote.rules), one by one,
on payloads shaped like the ones reference servers send; and that no observation, however
odd, makes them raise."""

from __future__ import annotations

import base64
import io
from enum import Enum
from typing import Literal

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from pydantic import BaseModel

from openenv.core.views import Board, Frame, Text
from openenv.web.remote.rules import MAX_BUTTONS, Rules

ATARI_ACTION = {"properties": {"action_id": {"type": "integer"}}, "required": ["action_id"]}


def encoded(pixels: np.ndarray, kind: str = "PNG") -> str:
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format=kind)
    return base64.b64encode(out.getvalue()).decode()


def test_a_flat_screen_with_its_shape_and_named_legal_ids_like_the_reference_atari():
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    obs = {
        "screen": pixels.ravel().tolist(),
        "screen_shape": [4, 5, 3],
        "legal_actions": [0, 1, 3],
        "action_meanings": ["NOOP", "FIRE", "UP", "DOWN"],
        "lives": 3,
    }
    reading = Rules(ATARI_ACTION).read(obs)
    assert isinstance(reading.view, Frame) and (reading.view.pixels == pixels).all()
    assert [(c.label, c.action) for c in reading.legal] == [
        ("NOOP", {"action_id": 0}), ("FIRE", {"action_id": 1}), ("DOWN", {"action_id": 3}),
    ]  # fmt: skip
    assert set(reading.drawn) == {"screen", "screen_shape", "legal_actions", "action_meanings"}


def test_nested_lists_grayscale_and_unit_floats_are_frames():
    rgb = np.full((3, 2, 3), 200, np.uint8)
    assert (Rules({}).read({"frame": rgb.tolist()}).view.pixels == rgb).all()
    gray = Rules({}).read({"pixels": [[0, 255], [255, 0]]}).view
    assert gray.pixels.shape == (2, 2, 3) and gray.pixels[0, 1].tolist() == [255, 255, 255]
    unit = Rules({}).read({"image": [[0.0, 1.0]]}).view
    assert unit.pixels[0, 1].tolist() == [255, 255, 255]


def test_base64_png_jpeg_and_data_urls_are_frames_and_bad_ones_are_not():
    pixels = np.zeros((6, 8, 3), np.uint8)
    pixels[:, :4] = [255, 0, 0]
    png = Rules({}).read({"image": encoded(pixels)}).view
    assert isinstance(png, Frame) and (png.pixels == pixels).all()
    url = Rules({}).read({"image": "data:image/png;base64," + encoded(pixels)}).view
    assert isinstance(url, Frame)
    jpeg = Rules({}).read({"image": encoded(pixels, "JPEG")}).view
    assert isinstance(jpeg, Frame) and jpeg.shape == (6, 8)
    broken = "iVBORw0KGgo" + "A" * 100 + "!!"
    assert not isinstance(Rules({}).read({"image": broken}).view, Frame)


def test_a_shape_that_does_not_fit_or_is_too_large_is_no_frame():
    assert Rules({}).read({"screen": [1, 2, 3], "screen_shape": [2, 2, 3]}).view is None
    huge = {"screen": [0] * 12, "screen_shape": [5000, 5000, 3]}
    assert Rules({}).read(huge).view is None


def test_a_fen_is_a_chess_board_with_square_names_and_whose_move():
    start = Rules({}).read({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"})
    board = start.view
    assert isinstance(board, Board) and board.shape == (8, 8)
    assert board.rows[0][4].glyph == "♚" and board.rows[7][4].label == "e1"
    assert board.caption == "White to move"
    after = Rules({}).read({"fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"})
    assert after.view.rows[4][4].glyph == "♙" and after.view.caption == "Black to move"
    assert Rules({}).read({"fen": "not/a/fen w - - 0 1"}).view is None


def test_prompt_and_messages_are_text_under_their_names():
    obs = {
        "prompt": "Guess a number.",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "7"}],
        "score": 3,
        "metadata": {"x": "y\nz"},
    }
    text = Rules({}).read(obs).view
    assert isinstance(text, Text)
    assert "[prompt]\nGuess a number." in text.text and "user: hi\n\nassistant: 7" in text.text
    assert "y\nz" not in text.text
    long = Rules({}).read({"text": "x" * 50_000}).view
    assert long.text.endswith("… (truncated)") and len(long.text) < 21_000


def test_a_literal_or_enum_action_is_one_button_per_value():
    class Walk(BaseModel):
        move: Literal["up", "down", "left", "right", "wait"]

    legal = Rules(Walk.model_json_schema()).read({}).legal
    assert [(c.label, c.key) for c in legal] == [
        ("up", "ArrowUp"), ("down", "ArrowDown"), ("left", "ArrowLeft"),
        ("right", "ArrowRight"), ("wait", None),
    ]  # fmt: skip

    class Colour(str, Enum):
        RED = "red"
        BLUE = "blue"

    class Paint(BaseModel):
        colour: Colour
        metadata: dict = {}

    schema = Paint.model_json_schema()
    assert "$ref" in schema["properties"]["colour"]
    assert [c.action for c in Rules(schema).read({}).legal] == [
        {"colour": "red"},
        {"colour": "blue"},
    ]


def test_legal_string_moves_become_buttons_and_too_many_none():
    chess = {"properties": {"move": {"type": "string"}}, "required": ["move"]}
    legal = Rules(chess).read({"legal_moves": ["e2e4", "d2d4"]}).legal
    assert [(c.label, c.action) for c in legal] == [
        ("e2e4", {"move": "e2e4"}),
        ("d2d4", {"move": "d2d4"}),
    ]
    many = Rules(chess).read({"legal_moves": [f"m{i}" for i in range(MAX_BUTTONS + 1)]})
    assert many.legal == []
    assert Rules(ATARI_ACTION).read({"legal_actions": [2, 5]}).legal[1].label == "5"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=40,
)
FIELDS = st.sampled_from(
    ["screen", "screen_shape", "legal_actions", "action_meanings", "fen", "messages", "image",
     "prompt", "board", "frame", "x"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(FIELDS, JSON, max_size=6))
def test_no_observation_makes_the_rules_raise(obs):
    for rules in (
        Rules(ATARI_ACTION),
        Rules({}),
        Rules({"properties": {"move": {"type": "string"}}, "required": ["move"]}),
    ):
        reading = rules.read(obs)
        assert reading.view is None or isinstance(reading.view, Frame | Board | Text)
