"""Clicks and keys on what the stage shows: a frame's ``click``/``keys`` actions and a board's
clickable squares, through the stage API (no browser) and over the remote view wire."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from fastapi.testclient import TestClient

from openenv.core import Board, Cell, Frame
from openenv.core.view_wire import view_from_wire, view_to_wire
from openenv.server import create_app
from tests.pointer_apps import CanvasEnvironment, SquaresEnvironment

# a notebook on the same machine: many tabs opened quickly, against no per-client page budget
LOOPBACK = ("127.0.0.1", 50000)


def opened(client: TestClient) -> str:
    answer = client.post("/web/stage/open", json={}).json()
    assert answer["ok"], answer
    return answer["tab"]


def act(client: TestClient, tab: str, **payload) -> dict:
    return client.post("/web/stage/act", json={"tab": tab, **payload}).json()


def episode(client: TestClient, tab: str):
    return client.app.state.openenv.web["controller"].tabs.by_key(tab).episode


@pytest.fixture(scope="module")
def canvas() -> Iterator[TestClient]:
    with TestClient(create_app(CanvasEnvironment), client=LOOPBACK) as client:
        yield client


@pytest.fixture(scope="module")
def squares() -> Iterator[TestClient]:
    with TestClient(create_app(SquaresEnvironment), client=LOOPBACK) as client:
        yield client


def test_a_frame_that_takes_clicks_and_keys_says_so_in_its_markup(canvas):
    html = canvas.post("/web/stage/open", json={}).json()["html"]
    assert "data-click" in html and "data-keys" in html and 'tabindex="0"' in html
    assert "click on it to act there; type to send keys" in html


def test_a_click_on_the_frame_steps_its_action_at_that_pixel(canvas):
    tab = opened(canvas)
    missed = act(canvas, tab, point=[1, 2])
    assert missed["ok"] and 'data-steps="1"' in missed["html"]
    hit = act(canvas, tab, point=[30, 15])
    assert hit["ok"] and 'data-steps="2"' in hit["html"]
    steps = episode(canvas, tab).steps
    assert [s["action"]["command"] for s in steps] == ["click 1 2", "click 30 15"]
    assert [s["reward"] for s in steps] == [0.0, 1.0]
    assert steps[1]["label"] == "click (30, 15)"  # what the step log names it


def test_keys_typed_on_the_frame_are_sent_as_json_strings(canvas):
    tab = opened(canvas)
    for key in ("h", "i", '"', "Backspace", "!"):
        assert act(canvas, tab, key=key)["ok"]
    assert episode(canvas, tab).observation["typed"] == "hi!"
    assert episode(canvas, tab).steps[0]["action"]["command"] == 'key "h"'


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"point": [40, 0]}, "x must be a whole pixel in [0, 39]"),
        ({"point": [0, -1]}, "y must be a whole pixel in [0, 29]"),
        ({"point": [1.5, 2]}, "x must be a whole pixel"),
        ({"point": "1,2"}, "send two numbers"),
        ({"key": ""}, "a key is a KeyboardEvent.key name"),
        ({"key": "x" * 33}, "a key is a KeyboardEvent.key name"),
        ({"key": "\n"}, "a key is a KeyboardEvent.key name"),
        ({"key": 7}, "a key is a KeyboardEvent.key name"),
        ({"cell": [0, 0]}, "takes no clicks or keys"),
    ],
)
def test_a_bad_click_or_key_is_refused_and_changes_nothing(canvas, payload, reason):
    tab = opened(canvas)
    answer = act(canvas, tab, **payload)
    assert not answer["ok"] and reason in answer["error"] and "nothing changed" in answer["error"]
    assert act(canvas, tab, point=[30, 15])["ok"]  # the session goes on


def test_a_clicked_square_steps_its_action_and_a_plain_square_refuses(squares):
    opened_html = squares.post("/web/stage/open", json={}).json()
    tab, html = opened_html["tab"], opened_html["html"]
    assert html.count('class="oe-cell oe-cell-act"') == 9 and 'data-r="1" data-c="1"' in html
    middle = act(squares, tab, cell=[1, 1])
    assert middle["ok"] and 'data-steps="1"' in middle["html"]
    assert middle["html"].count("oe-cell-act") == 8  # the marked square is no longer a button
    again = act(squares, tab, cell=[1, 1])
    assert not again["ok"] and "square (1, 1) takes no clicks" in again["error"]
    for bad, reason in (([3, 0], "there is no square (3, 0)"), ([True, 0], "two whole numbers")):
        answer = act(squares, tab, cell=bad)
        assert not answer["ok"] and reason in answer["error"]
    assert act(squares, tab, point=[0, 0])["error"].endswith(
        "What is shown now takes no clicks or keys: use the buttons or the action form."
    )


def test_click_keys_and_square_actions_cross_the_view_wire():
    frame = Frame(np.zeros((2, 3, 3), np.uint8), click={"a": "c {x} {y}"}, keys={"a": "k {key}"})
    back = view_from_wire(view_to_wire(frame))
    assert isinstance(back, Frame) and back.click_action(2, 1) == {"a": "c 2 1"}
    assert back.key_action("Enter") == {"a": 'k "Enter"'}
    plain = view_from_wire(view_to_wire(Frame(np.zeros((2, 3, 3), np.uint8))))
    assert plain.click is None and plain.keys is None
    board = Board([[Cell("a", action={"m": 1}), Cell("b")]])
    read = view_from_wire(view_to_wire(board))
    assert isinstance(read, Board) and read.cell_action(0, 0) == {"m": 1}
    with pytest.raises(ValueError, match="expected a JSON object"):
        view_from_wire({**view_to_wire(frame), "click": "rm -rf"})


def test_templates_are_filled_by_replacement_never_by_format():
    frame = Frame(np.zeros((2, 2, 3), np.uint8), keys={"a": ["{key}", {"b": "{0.__class__}"}]})
    assert frame.key_action("{x}") == {"a": ['"{x}"', {"b": "{0.__class__}"}]}
