"""/ws message parsing and reply text: what a client reads, frame by frame (no server needed)."""

from __future__ import annotations

import json
import math

import pytest
from grid_world_env.models import GridWorldObservation

from openenv.core.errors import InvalidJSON, SessionNotFound, UnknownMessageType
from openenv.core.serialization import observation_to_wire
from openenv.server import protocol

PAYLOADS = [
    {"observation": {"metadata": {}, "x": 1, "message": "Moved DOWN."}, "reward": -0.1},
    {"text": 'é ✓ 🤖 \u2028 "quoted" \\ \n', "empty": "", "none": None, "flag": True},
    {"big": 2**70, "small": 1e-7, "huge": 1e300, "third": 1 / 3, "neg_zero": -0.0},
    {"nested": [[1, 2], {"a": [None, False]}], "ints": list(range(5))},
]


@pytest.mark.parametrize("data", PAYLOADS)
def test_replies_decode_to_what_was_sent_and_are_ascii(data) -> None:
    text = protocol.reply("observation", data, "rid-1")
    assert text.isascii()  # non-ASCII escaped, as json.dumps does
    assert json.loads(text) == {"type": "observation", "data": data, "request_id": "rid-1"}


def test_reply_text_matches_the_standard_library_for_an_observation() -> None:
    obs = GridWorldObservation(x=2, y=3, message="Moved UP.", reward=-0.1, done=False)
    data = observation_to_wire(obs)
    assert protocol.reply("observation", data) == json.dumps(
        {"type": "observation", "data": data}, separators=(",", ":")
    )


def test_non_finite_rewards_are_spelt_as_python_spells_them() -> None:
    text = protocol.reply("observation", {"reward": math.inf, "other": -math.inf, "n": math.nan})
    assert '"reward":Infinity' in text and '"other":-Infinity' in text and '"n":NaN' in text


def test_request_id_is_left_out_when_not_given() -> None:
    assert "request_id" not in json.loads(protocol.error_reply(SessionNotFound("gone")))


@pytest.mark.parametrize(
    ("raw", "error", "words"),
    [
        ("{not json", InvalidJSON, "not valid JSON"),
        ('{"type": "step"} trailing', InvalidJSON, "not valid JSON"),
        ("[1]", InvalidJSON, "an array"),
        (b"{}", InvalidJSON, "binary frames"),
        ('{"type": ["step"]}', UnknownMessageType, "expected one of"),
        ('{"type": {"a": 1}}', UnknownMessageType, "expected one of"),
    ],
)
def test_bad_frames_raise_errors_that_say_why(raw, error, words) -> None:
    with pytest.raises(error, match=words):
        protocol.parse_message(raw)


def test_a_message_parses_into_kind_data_and_request_id() -> None:
    raw = '{"type": "step", "data": {"action": "UP"}, "request_id": 7}'
    kind, data, rid = protocol.parse_message(raw)
    assert (kind, data, rid) == ("step", {"action": "UP"}, 7)
    assert protocol.parse_message('{"type": "state"}') == ("state", {}, None)
    assert math.isnan(protocol.parse_message('{"type":"step","data":{"x":NaN}}').data["x"])
