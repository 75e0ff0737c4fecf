"""What an environment draws, on the wire: every view, button and slider survives the trip, a
malformed or oversized drawing is refused before it costs anything, and our servers answer
``{"type": "view"}`` on /ws and say so (the handshake header, ``GET /features``)."""

from __future__ import annotations

import base64
import zlib

import httpx
import numpy as np
import pytest
from snake_env.server.environment import SnakeEnvironment

from openenv.client import GenericEnvClient
from openenv.core.frames import decode_frame
from openenv.core.serialization import dump_json, load_json
from openenv.core.view_wire import drawing_from_wire, drawing_to_wire
from openenv.core.views import ActionChoice, ActionSliders, Board, Cell, Frame, Slider, Svg, Text
from openenv.server import create_app
from tests.servers import served


def roundtrip(view, legal=(), sliders=None):
    return drawing_from_wire(load_json(dump_json(drawing_to_wire(view, list(legal), sliders))))


def test_every_view_and_its_buttons_and_sliders_survive_json():
    pixels = np.random.default_rng(0).integers(0, 255, (12, 7, 3), dtype=np.uint8)
    frame, _, _ = roundtrip(Frame(pixels))
    assert isinstance(frame, Frame) and (frame.pixels == pixels).all()
    board = Board([[Cell("♔", color="#000", label="e1"), Cell()]], {"♔": "king"}, "White")
    assert roundtrip(board)[0] == board
    assert roundtrip(Text("a\nb"))[0] == Text("a\nb")
    assert roundtrip(Svg("<svg/>"))[0] == Svg("<svg/>")
    legal = [ActionChoice("Up", {"move": "up"}, key="ArrowUp", description="go up")]
    sliders = ActionSliders("force", (Slider("x", -1, 1, 0.5),), scalar=True, action={"a": 1})
    view, buttons, back = roundtrip(None, legal, sliders)
    assert view is None and buttons == legal and back == sliders


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ("a string", "JSON object"),
        ({"view": {"kind": "sparkles"}}, "unknown view kind"),
        ({"view": {"kind": "text", "text": 3}}, "'text' must be a string"),
        ({"legal": [{"label": "x", "action": "up"}]}, "JSON object"),
        ({"legal": [{}] * 2000}, "at most"),
        ({"view": {"kind": "board", "rows": [[{}] * 300] * 300}}, "at most"),
        ({"sliders": {"field": "f", "sliders": [{"label": "x", "low": "a"}]}}, "number"),
    ],
)
def test_a_malformed_drawing_is_refused_with_the_reason(data, why):
    with pytest.raises(ValueError, match=why):
        drawing_from_wire(data)


def test_an_oversized_frame_is_refused_before_it_is_inflated():
    bomb = base64.b64encode(zlib.compress(bytes(50_000_000), 9)).decode()
    frame = {"encoding": "zlib", "shape": [5000, 5000, 2], "data": bomb}
    with pytest.raises(ValueError, match="larger than"):
        drawing_from_wire({"view": {"kind": "frame", "frame": frame}}, max_frame_bytes=10**6)
    lying = {"encoding": "zlib", "shape": [10, 10, 3], "data": bomb}  # says small, inflates big
    with pytest.raises(ValueError, match="holds 301 bytes"):
        decode_frame(lying)


def test_our_server_draws_on_request_and_says_it_can():
    app = create_app(SnakeEnvironment, enable_web=False)
    with served(app) as url:
        features = httpx.get(url + "/features").json()
        assert features["server"] == "openenv-playground" and "views" in features["features"]
        assert features["reset"]["properties"]["width"]["maximum"] == 30
        with GenericEnvClient(url).sync() as env:
            env.reset(seed=1)
            view, legal, sliders = env.drawing()
            local = SnakeEnvironment()
            local.reset(seed=1)
            assert view == local.render() and [c.label for c in legal] == [
                c.label for c in local.legal_actions()
            ]
            assert sliders is None
            env.step(legal[0].action)  # the session goes on after a view
