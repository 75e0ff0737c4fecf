"""What the playground draws for a remote server's observations (openenv.web.remote.rules):
each rule of the module's documentation on payloads shaped like the ones reference servers send,
and that no observation or schema, however odd, makes the rules raise.

(Over 400 lines: one test or more per documented rule, kept beside each other as the rules are.)"""

from __future__ import annotations

import base64
import io
import time
from enum import Enum
from typing import Any, Literal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from pydantic import BaseModel, Field

from openenv.core.frames import encode_frame
from openenv.core.views import Board, Frame, Text
from openenv.web.remote.rules import MAX_BUTTONS, MAX_TEXT, Reading, Rules

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


class CatchAction(BaseModel):  # the reference Atari env's action, metadata and all
    action_id: int = Field(description="Index into legal_actions")
    metadata: dict[str, Any] = Field(default_factory=dict)


class MoveAction(BaseModel):
    move: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class CatchObservation(BaseModel):
    screen: list[int] = []
    screen_shape: list[int] = []
    legal_actions: list[int] = []
    action_meanings: list[str] = []
    lives: int = 3
    reward: float | None = None
    done: bool = False
    metadata: dict[str, Any] = {}


ATARI = Rules(CatchAction.model_json_schema(), CatchObservation.model_json_schema())
CHESS = Rules(MoveAction.model_json_schema())
NONE = Rules({})


def encoded(pixels: np.ndarray, kind: str = "PNG") -> str:
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format=kind)
    return base64.b64encode(out.getvalue()).decode()


def stripes(height: int = 6, width: int = 8) -> np.ndarray:
    pixels = np.zeros((height, width, 3), np.uint8)
    pixels[:, : width // 2] = [255, 0, 0]
    pixels[:, width // 2 :] = [0, 0, 255]
    return pixels


def atari_observation(pixels: np.ndarray) -> dict[str, Any]:
    return {
        "screen": pixels.ravel().tolist(),
        "screen_shape": list(pixels.shape),
        "legal_actions": [0, 1, 3],
        "action_meanings": ["NOOP", "FIRE", "UP", "DOWN"],
        "lives": 3,
        "reward": 0.0,
        "done": False,
        "metadata": {},
    }


# -- frames -----------------------------------------------------------------------------------


def test_the_reference_atari_screen_is_a_frame_with_a_named_button_per_legal_action():
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    reading = ATARI.read(atari_observation(pixels))
    assert isinstance(reading.view, Frame) and (reading.view.pixels == pixels).all()
    assert [(c.label, c.action) for c in reading.legal] == [
        ("NOOP", {"action_id": 0}), ("FIRE", {"action_id": 1}), ("DOWN", {"action_id": 3}),
    ]  # fmt: skip
    assert set(reading.drawn) == {"screen", "screen_shape", "legal_actions", "action_meanings"}


def test_a_flat_grayscale_screen_with_a_two_or_three_part_shape_is_a_frame():
    gray = np.arange(12, dtype=np.uint8).reshape(3, 4)
    for shape in ([3, 4], [3, 4, 1]):
        view = NONE.read({"screen": gray.ravel().tolist(), "screen_shape": shape}).view
        assert isinstance(view, Frame) and view.shape == (3, 4)
        assert (view.pixels[:, :, 1] == gray).all()


def test_an_atari_sized_screen_is_read_in_a_few_milliseconds():
    obs = atari_observation(np.random.default_rng(0).integers(0, 256, (210, 160, 3), np.uint8))
    best = min(_timed(lambda: ATARI.read(obs)) for _ in range(5))
    assert best < 0.010


def _timed(call: Any) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def test_nested_rgb_lists_and_unit_floats_are_frames():
    rgb = stripes(3, 2)
    assert (NONE.read({"frame": rgb.tolist()}).view.pixels == rgb).all()
    unit = NONE.read({"image": [[[0.0, 0.5, 1.0]]]}).view
    assert unit.pixels[0, 0].tolist() == [0, 128, 255]
    js_floats = NONE.read({"image": [[0, 1], [0.5, 0]]}).view  # floats written without ".0"
    assert js_floats.pixels[:, :, 0].tolist() == [[0, 255], [128, 0]]


def test_a_grayscale_grid_is_a_frame_under_a_frame_name_or_when_large():
    named = NONE.read({"pixels": [[0, 255], [255, 0]]}).view
    assert named.pixels.shape == (2, 2, 3) and named.pixels[0, 1].tolist() == [255, 255, 255]
    large = NONE.read({"depth": np.full((40, 32), 7).tolist()}).view
    assert isinstance(large, Frame) and large.shape == (40, 32)


def test_a_small_grid_of_game_codes_is_a_board_not_a_picture():
    sudoku = [[(r * 3 + c) % 10 for c in range(9)] for r in range(9)]
    board = NONE.read({"grid": sudoku}).view
    assert isinstance(board, Board) and board.shape == (9, 9)
    assert board.rows[0][1].glyph == "1" and board.rows[0][0].glyph == ""  # 0 is empty
    assert NONE.read({"grid": sudoku, "camera_image": sudoku}).drawn == ("camera_image",)


@pytest.mark.parametrize(
    "obs",
    [
        {"frame": [[[0, 0, 256]]]},  # out of range
        {"frame": [[[0, 0, -1]]]},
        {"frame": [[[0.0, 2.5, 0.0]]]},  # floats outside [0, 1]
        {"frame": [[[0, 0]]]},  # two channels
        {"frame": [[[1, 2, 3]], [[1, 2]]]},  # ragged
        {"frame": [[True, False]]},
        {"frame": [["a", "b"]]},
        {"frame": [[float("nan"), 0.0]]},
        {"screen": [1, 2, 3], "screen_shape": [2, 2, 3]},  # the shape does not fit
        {"screen": [0] * 12, "screen_shape": [5000, 5000, 3]},  # too large
        {"screen": [0] * 12, "screen_shape": [2, 2, 3, 1]},
        {"screen": [0] * 12, "screen_shape": "2x2x3"},
        {"screen": [0] * 12},  # no shape
    ],
)
def test_what_is_not_an_image_is_no_frame(obs):
    reading = NONE.read(obs)
    assert not isinstance(reading.view, Frame)
    if reading.view is not None:  # a grid of short strings is a board of them
        assert isinstance(reading.view, Board) and obs == {"frame": [["a", "b"]]}


def test_base64_png_jpeg_and_data_urls_are_frames():
    pixels = stripes()
    png = NONE.read({"image": encoded(pixels)}).view
    assert isinstance(png, Frame) and (png.pixels == pixels).all()
    url = NONE.read({"image": "data:image/png;base64," + encoded(pixels)}).view
    assert isinstance(url, Frame) and (url.pixels == pixels).all()
    jpeg = NONE.read({"image": encoded(pixels, "JPEG")}).view
    assert isinstance(jpeg, Frame) and jpeg.shape == (6, 8)
    assert jpeg.pixels[0, 0, 0] > 200 and jpeg.pixels[0, -1, 2] > 200  # red left, blue right
    gray = NONE.read({"image": encoded(pixels[:, :, 0])}).view
    assert gray.pixels.shape == (6, 8, 3)


def test_bad_truncated_or_oversized_images_are_ignored():
    good = encoded(stripes())
    raw = base64.b64decode(good)
    for text in (
        "iVBORw0KGgo" + "A" * 100 + "!!",  # not base64
        base64.b64encode(raw[: len(raw) // 2]).decode(),  # truncated
        base64.b64encode(raw[:40] + b"\x00" * 40 + raw[80:]).decode(),  # corrupted
        encoded(np.zeros((1, 4097, 3), np.uint8)),  # wider than 4096
        "data:image/png;base64,not-an-image",
    ):
        assert NONE.read({"image": text}).view is None


def test_a_field_with_a_frame_name_goes_first_else_the_first_in_schema_order():
    small, big = stripes(2, 2), stripes(4, 4)
    obs = {"thumb": small.tolist(), "screen": encoded(big)}
    assert NONE.read(obs).view.shape == (4, 4) and NONE.read(obs).drawn == ("screen",)

    class Two(BaseModel):
        second: list[Any] = []
        first: list[Any] = []

    obs = {"first": small.tolist(), "second": big.tolist()}
    assert NONE.read(obs).view.shape == (2, 2)  # observation order, without a schema
    ordered = Rules({}, Two.model_json_schema()).read(obs)
    assert ordered.view.shape == (4, 4) and ordered.drawn == ("second",)


def test_our_own_frame_encoding_is_a_frame():
    pixels = stripes()
    view = NONE.read({"screen": encode_frame(pixels).model_dump()}).view
    assert isinstance(view, Frame) and (view.pixels == pixels).all()


# -- chess ------------------------------------------------------------------------------------


def test_the_start_position_is_a_board_with_glyphs_squares_and_whose_move():
    board = CHESS.read({"fen": START}).view
    assert isinstance(board, Board) and board.shape == (8, 8)
    assert "".join(c.glyph for c in board.rows[0]) == "♜♞♝♛♚♝♞♜"
    assert "".join(c.glyph for c in board.rows[7]) == "♖♘♗♕♔♗♘♖"
    assert [c.label for c in board.rows[7]] == [f"{f}1" for f in "abcdefgh"]
    assert board.rows[0][0].label == "a8" and board.rows[0][0].background == "#f0d9b5"
    assert board.rows[7][0].background == "#b58863"  # a1 is dark
    assert board.caption == "White to move"


def test_after_e4_the_pawn_stands_on_e4_and_black_is_to_move():
    board = CHESS.read({"fen": AFTER_E4}).view
    e4 = board.rows[4][4]
    assert (e4.label, e4.glyph) == ("e4", "♙") and board.rows[6][4].glyph == ""
    assert board.caption == "Black to move"


def test_the_reference_chess_server_gets_a_board_and_a_button_per_legal_move():
    obs = {"fen": START, "legal_moves": ["e2e4", "d2d4"], "result": None, "reward": 0.0}
    reading = CHESS.read(obs)
    assert isinstance(reading.view, Board)
    assert [(c.label, c.action) for c in reading.legal] == [
        ("e2e4", {"move": "e2e4"}),
        ("d2d4", {"move": "d2d4"}),
    ]
    assert reading.drawn == ("fen", "legal_moves")


@pytest.mark.parametrize(
    "text",
    [
        "not/a/fen w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",  # a rank of seven
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
        "rnbqkbnr/ppppzppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ],
)
def test_what_is_not_a_fen_is_no_board(text):
    assert not isinstance(CHESS.read({"fen": text}).view, Board)


def test_a_fen_under_board_is_a_board_not_text():
    assert isinstance(CHESS.read({"board": START, "message": "your move"}).view, Board)


# -- text -------------------------------------------------------------------------------------


def test_a_prompt_and_messages_are_text_each_under_its_name():
    obs = {
        "prompt": "Guess a number.",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "7"}],
        "score": 3,
        "reward": 0.0,
        "done": False,
        "metadata": {"note": "y\nz"},
    }
    reading = Rules(MoveAction.model_json_schema()).read(obs)
    assert isinstance(reading.view, Text)
    assert reading.view.text == "[prompt]\nGuess a number.\n\n[messages]\nuser: hi\n\nassistant: 7"
    assert reading.drawn == ("prompt", "messages")


def test_one_text_field_is_drawn_bare_and_a_line_break_makes_any_string_text():
    assert NONE.read({"message": "Walk to G.", "status": "ok"}).view == Text("Walk to G.")
    grid = NONE.read({"maze": "#.#\n#G#", "name": "maze 1"}).view
    assert grid == Text("#.#\n#G#")


def test_the_literal_grid_walk_shows_its_board_and_message_in_schema_order():
    class WalkObservation(BaseModel):
        board: str = ""
        position: list[int] = []
        message: str = ""

    obs = {"message": "Moved up.", "position": [0, 1], "board": "A....\n....G"}
    text = Rules({}, WalkObservation.model_json_schema()).read(obs).view
    assert text.text == "[board]\nA....\n....G\n\n[message]\nMoved up."


def test_message_parts_and_missing_roles_are_read():
    obs = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image"}]},
            {"content": "no role"},
            "not a message",
        ]
    }
    assert NONE.read(obs).view.text == "user: look\n\nno role"


def test_metadata_reward_done_and_fields_typed_as_numbers_are_never_text():
    class Obs(BaseModel):
        score: int = 0

    obs = {"metadata": "a\nb", "reward": "1\n2", "done": "x\ny", "score": "3\n4"}
    assert Rules({}, Obs.model_json_schema()).read(obs).view is None


def test_long_text_is_cut_and_says_so():
    long = NONE.read({"text": "x" * 50_000}).view.text
    assert long.endswith("… (truncated)") and len(long) < MAX_TEXT + 50
    many = [{"role": "user", "content": "y" * 1000}] * 10_000
    assert NONE.read({"messages": many}).view.text.endswith("… (truncated)")


# -- buttons ----------------------------------------------------------------------------------


def test_a_literal_action_is_a_button_per_value_with_arrow_keys():
    class Walk(BaseModel):
        move: Literal["up", "down", "left", "right", "wait"]

    legal = Rules(Walk.model_json_schema()).read({}).legal
    assert [(c.label, c.action, c.key) for c in legal] == [
        ("up", {"move": "up"}, "ArrowUp"), ("down", {"move": "down"}, "ArrowDown"),
        ("left", {"move": "left"}, "ArrowLeft"), ("right", {"move": "right"}, "ArrowRight"),
        ("wait", {"move": "wait"}, None),
    ]  # fmt: skip


def test_an_enum_action_through_defs_is_a_button_per_value():
    class Command(str, Enum):
        NORTH = "North"
        SOUTH = "South"
        FIRE = "FIRE"
        NOOP = "noop"

    class Order(BaseModel):
        command: Command
        metadata: dict[str, Any] = {}

    schema = Order.model_json_schema()
    assert "$ref" in schema["properties"]["command"]
    legal = Rules(schema).read({"board": "..."}).legal
    assert [(c.action, c.key) for c in legal] == [
        ({"command": "North"}, "ArrowUp"), ({"command": "South"}, "ArrowDown"),
        ({"command": "FIRE"}, " "), ({"command": "noop"}, None),
    ]  # fmt: skip


def test_one_key_moves_one_button_only():
    class Walk(BaseModel):
        go: Literal["UP", "north", "Left"]

    legal = Rules(Walk.model_json_schema()).read({}).legal
    assert [c.key for c in legal] == ["ArrowUp", None, "ArrowLeft"]


def test_an_optional_enum_and_a_const_are_buttons_too():
    class Maybe(BaseModel):
        side: Literal["left", "right"] | None = None

    assert [c.label for c in Rules(Maybe.model_json_schema()).read({}).legal] == ["left", "right"]

    class Only(BaseModel):
        verb: Literal["pass"]

    assert [c.action for c in Rules(Only.model_json_schema()).read({}).legal] == [{"verb": "pass"}]


def test_an_action_of_two_required_fields_gets_no_buttons():
    class Place(BaseModel):
        row: Literal[0, 1, 2]
        col: Literal[0, 1, 2]

    reading = Rules(Place.model_json_schema()).read({"legal_actions": [0, 1]})
    assert reading.legal == [] and reading.drawn == ()


def test_legal_integers_are_named_by_id_or_in_step_or_not_at_all():
    by_id = ATARI.read({"legal_actions": [2, 0], "action_names": ["NOOP", "FIRE", "UP"]})
    assert [(c.label, c.action["action_id"]) for c in by_id.legal] == [("UP", 2), ("NOOP", 0)]
    assert by_id.legal[0].description == "action_id 2"
    in_step = ATARI.read({"legal_actions": [1, 0], "legal_action_names": ["FIRE", "NOOP"]})
    assert [c.label for c in in_step.legal] == ["FIRE", "NOOP"]
    short = ATARI.read({"legal_actions": [7, 9], "action_meanings": ["JUMP", "DUCK"]})
    assert [c.label for c in short.legal] == ["JUMP", "DUCK"]
    bare = ATARI.read({"legal_actions": [2, 5], "action_meanings": ["A"]})
    assert [c.label for c in bare.legal] == ["action id 2", "action id 5"]  # by the field
    assert bare.drawn == ("legal_actions",)


def test_an_integer_action_with_a_default_or_an_enum_takes_the_legal_list():
    class Defaulted(BaseModel):
        action: int = 0

    assert len(Rules(Defaulted.model_json_schema()).read({"valid_actions": [0, 4]}).legal) == 2

    class Named(BaseModel):
        action_id: Literal[0, 1, 2, 3]

    legal = Rules(Named.model_json_schema()).read({"available_actions": [3]}).legal
    assert [c.action for c in legal] == [{"action_id": 3}]


def test_an_empty_legal_list_means_nothing_is_legal_now():
    assert ATARI.read({"legal_actions": []}).legal == []


def test_a_legal_list_of_the_wrong_kind_leaves_the_enum_buttons():
    class Walk(BaseModel):
        move: Literal["up", "down"]

    assert len(Rules(Walk.model_json_schema()).read({"legal_actions": [0, 1]}).legal) == 2
    assert CHESS.read({"legal_moves": [1, 2]}).legal == []


def test_too_many_choices_make_no_buttons():
    many = CHESS.read({"legal_moves": [f"m{i}" for i in range(MAX_BUTTONS + 1)]})
    assert many.legal == [] and many.drawn == ()
    assert len(CHESS.read({"legal_moves": [f"m{i}" for i in range(MAX_BUTTONS)]}).legal) == 200
    wide = {"properties": {"n": {"enum": list(range(MAX_BUTTONS + 1))}}, "required": ["n"]}
    assert Rules(wide).read({}).legal == []


def test_a_move_named_twice_is_one_button():
    assert [c.label for c in CHESS.read({"legal_moves": ["e2e4", "e2e4"]}).legal] == ["e2e4"]


def test_hand_written_schemas_with_all_of_nullable_types_and_cycles_are_read():
    all_of = {
        "$defs": {"Dir": {"enum": ["left", "right"]}},
        "properties": {"d": {"allOf": [{"$ref": "#/$defs/Dir"}], "description": "where"}},
        "required": ["d"],
    }
    assert [c.label for c in Rules(all_of).read({}).legal] == ["left", "right"]
    nullable = {"properties": {"move": {"type": ["string", "null"]}}, "required": ["move"]}
    assert len(Rules(nullable).read({"legal_moves": ["a"]}).legal) == 1
    cycle = {"$defs": {"A": {"$ref": "#/$defs/A"}}, "properties": {"a": {"$ref": "#/$defs/A"}}}
    assert Rules(cycle, cycle).read({"a": 1}).legal == []


# -- never raising ----------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=40,
)
FIELDS = st.sampled_from(
    ["screen", "screen_shape", "legal_actions", "legal_moves", "action_meanings",
     "legal_action_names", "fen", "messages", "image", "prompt", "board", "frame", "metadata",
     "x"]
)  # fmt: skip
IMAGE_LIKE = st.sampled_from(["iVBORw0KGgo", "/9j/", "data:image/png;base64,"]).flatmap(
    lambda head: st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh0123456789+/=", max_size=200
    ).map(lambda body: head + body)
)
RULES = (
    ATARI,
    NONE,
    CHESS,
    Rules({"properties": {"m": {"enum": ["up", 3, None]}}, "required": ["m"]}),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(FIELDS, JSON | IMAGE_LIKE, max_size=6))
def test_no_observation_makes_the_rules_raise(obs):
    for rules in RULES:
        reading = rules.read(obs)
        assert reading.view is None or isinstance(reading.view, Frame | Board | Text)
        assert set(reading.drawn) <= set(obs)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 300), st.binary(min_size=1, max_size=16))
def test_no_damaged_png_makes_the_rules_raise(at, junk):
    raw = bytearray(base64.b64decode(encoded(stripes(16, 16))))
    raw[at : at + len(junk)] = junk
    reading = NONE.read({"image": base64.b64encode(bytes(raw)).decode()})
    assert reading.view is None or isinstance(reading.view, Frame)


@settings(max_examples=100, deadline=None)
@given(JSON, JSON)
def test_no_schema_makes_the_rules_raise(action, observation):
    rules = Rules(action, observation)  # type: ignore[arg-type]
    rules.read({"legal_actions": [0], "fen": START, "text": "hi"})


def test_what_is_not_an_observation_reads_as_nothing():
    assert NONE.read(["not", "a", "dict"]) == Reading(None, [])  # type: ignore[arg-type]
