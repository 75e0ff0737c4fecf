"""Any observation is drawn (issue 32 item 5): grids in nested numbers, in short strings or
inside ``metadata`` become boards with a palette and a legend; integer actions are named from
the schema (enum names, constants' titles, a description that lists them) or by their field;
code and text fields get a multi-line editor. Unit rules first, then reference servers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, Field

from openenv.core.views import Board
from openenv.web.drawing import to_image
from openenv.web.forms import FieldSpec, fields_from_model
from openenv.web.remote.environment import remote_environment
from openenv.web.remote.models import action_model
from openenv.web.remote.probe import Remote, describe
from openenv.web.remote.rules import Rules, editor_hints
from tests.compat.ref_servers import ref_servers

NONE = Rules({})


def connect_four() -> list[list[int]]:
    board = [[0] * 7 for _ in range(6)]
    board[5][3], board[5][4] = 1, -1
    return board


def test_nested_integers_are_a_board_of_coloured_pieces_with_a_legend():
    reading = NONE.read({"board": connect_four(), "message": "Your move."})
    board = reading.view
    assert isinstance(board, Board) and board.shape == (6, 7) and reading.drawn == ("board",)
    mine, theirs, empty = board.rows[5][3], board.rows[5][4], board.rows[0][0]
    assert len({mine.background, theirs.background, empty.background}) == 3
    assert mine.glyph == "" and mine.label == "board[5][3] = 1"  # pieces: colours, no numbers
    assert board.legend == {"1": "orange", "-1": "sky blue", "0": "empty"}
    image = to_image(board)
    assert image is not None and image.size == (7 * 48 + 1, 6 * 48 + 1)


def test_number_grids_write_their_numbers_and_floats_are_shaded():
    tiles = NONE.read({"tiles": [[2, 4, 0, 0], [8, 2, 0, 0], [0, 0, 16, 0]]}).view
    assert [c.glyph for c in tiles.rows[0]] == ["2", "4", "", ""]
    heat = NONE.read({"values": [[0.0, 0.25], [0.5, 1.0]]}).view
    shades = [c.background for row in heat.rows for c in row]
    assert len(set(shades)) == 4 and heat.legend == {"0": "lightest", "1": "darkest"}


def test_a_grid_of_short_strings_is_written_square_by_square():
    board = NONE.read({"cells": [["X", "O", ""], ["", "X", ""], ["", "", "O"]]}).view
    assert board.to_text() == "XO \n X \n  O"


def test_a_grid_inside_metadata_is_drawn_even_as_a_json_string():
    for maze in ([[1, 0, 1], [0, 0, 2]], json.dumps([[1, 0, 1], [0, 0, 2]])):
        reading = NONE.read({"message": "Find the exit.", "metadata": {"maze": maze}})
        assert isinstance(reading.view, Board) and reading.view.caption == "maze (2×3)"


@pytest.mark.parametrize(
    "value",
    [
        [[1, 2], [3]],  # ragged
        [[True, False], [False, True]],
        [[1, "x"], [2, 3]],
        [["long text", "b"]],
        [[float("nan"), 1.0]],
        [[0] * 65] * 2,  # too wide
        "[[1, 2], [3, 4]",  # broken JSON
    ],
)
def test_what_is_no_grid_is_no_board(value):
    assert not isinstance(NONE.read({"metadata": {"grid": value}}).view, Board)


def test_integer_actions_are_named_from_the_schema():
    class Listed(BaseModel):
        move: int = Field(ge=0, le=3, description="0: up, 1: down, 2: left, 3: right")

    assert [c.label for c in Rules(Listed.model_json_schema()).read({}).legal] == [
        "up", "down", "left", "right",
    ]  # fmt: skip

    class Ranged(BaseModel):
        column: int = Field(ge=0, le=6, description="Column to drop a piece into")

    legal = Rules(Ranged.model_json_schema()).read({}).legal
    assert [c.label for c in legal][:2] == ["column 0", "column 1"] and len(legal) == 7
    assert legal[3].action == {"column": 3}
    constants = [{"const": 0, "title": "NOOP"}, {"const": 1, "title": "FIRE"}]
    titled = {"properties": {"a": {"oneOf": constants}}, "required": ["a"]}
    assert [c.label for c in Rules(titled).read({}).legal] == ["NOOP", "FIRE"]
    named = {
        "properties": {"m": {"type": "integer", "enum": [0, 1], "x-enum-varnames": ["UP", "DN"]}},
        "required": ["m"],
    }
    assert [c.label for c in Rules(named).read({"legal_actions": [1]}).legal] == ["DN"]


def test_code_and_text_fields_get_a_multi_line_editor():
    class Cell(BaseModel):
        code: str
        language: str = "python"
        note: str = Field("", description="Shell script to run first")
        mode: str = Field("fast", json_schema_extra={"enum": ["fast", "slow"]})

    hinted = editor_hints(Cell.model_json_schema())["properties"]
    assert hinted["code"]["format"] == "textarea" and hinted["note"]["format"] == "textarea"
    assert "format" not in hinted["language"] and "format" not in hinted["mode"]
    assert "format" not in Cell.model_json_schema()["properties"]["code"]  # a copy is hinted
    specs = {s.name: s for s in fields_from_model(action_model(Cell.model_json_schema()))}
    assert specs["code"].multiline and not specs["language"].multiline


# -- against servers written with the reference package ----------------------------------------


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    with ref_servers("drop_four", "code_cell") as started:
        yield {name: server.url for name, server in started.items()}


def play(url: str, script: Any) -> Any:
    async def run() -> Any:
        description = await describe(Remote.of(url))
        env = remote_environment(description)()
        try:
            return await script(env, action_model(description.action_schema))
        finally:
            await env.close_async()

    return asyncio.run(run())


@pytest.mark.compat
def test_a_reference_connect_four_is_a_board_with_named_column_buttons(servers):
    async def script(env: Any, action: Any) -> None:
        await env.reset_async(seed=0)
        assert [c.label for c in env.legal_actions()][:2] == ["column 0", "column 1"]
        await env.step_async(action(**env.legal_actions()[3].action))
        board = env.render()
        assert isinstance(board, Board) and board.shape == (6, 7)
        assert board.rows[5][3].label == "board[5][3] = 1"  # the visitor's piece, drawn
        assert board.rows[5][0].label == "board[5][0] = -1"  # the reply's

    play(servers["drop_four"], script)


@pytest.mark.compat
def test_a_reference_code_cell_gets_an_editor_and_its_metadata_maze_is_drawn(servers):
    async def script(env: Any, action: Any) -> None:
        spec = next(s for s in fields_from_model(action) if s.name == "code")
        assert isinstance(spec, FieldSpec) and spec.multiline
        await env.reset_async(seed=0)
        maze = env.render()
        assert isinstance(maze, Board) and maze.caption == "maze (3×4)"
        obs = await env.step_async(action(code="x = 1\nprint(x)\n"))
        assert obs.stdout == "2 lines, compiles"  # the newline reached the remote

    play(servers["code_cell"], script)
