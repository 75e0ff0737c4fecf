"""Whose side the agent plays: "agent answers each of my moves" never moves the visitor's
pieces, whether the env's own opponent has already replied (connect4's default) or the visitor
chose a side ("you play")."""

from __future__ import annotations

import pytest
from connect4_env.server.environment import Connect4Environment
from fastapi.testclient import TestClient

from openenv.server import create_app
from openenv.web.agents import agent_opens, answer_wanted, side_of, turn_of


def test_the_turn_is_read_from_the_observation_or_its_metadata():
    assert turn_of({"current_player": -1}) == -1
    assert turn_of({"turn": "White"}) == "white"
    assert turn_of({"metadata": {"to_play": 1}}) == 1
    assert turn_of({"current_player_id": -4}) is None  # OpenSpiel: the game is over
    assert turn_of({"board": [[0]]}) is None and turn_of(None) is None
    assert turn_of({"current_player": True}) is None


def test_the_agent_answers_only_on_the_other_sides_turn():
    assert not answer_wanted({"current_player": 1}, mover=1)  # the env's opponent replied
    assert answer_wanted({"current_player": -1}, mover=1)  # hot seat: the other side is to move
    assert not answer_wanted({"current_player": -1}, mover=1, side=-1)  # the visitor plays -1
    assert answer_wanted({"turn": "black"}, mover="white", side="White")
    assert answer_wanted({"n": 1}, mover=None)  # no turns named: each move is answered
    assert not answer_wanted({"current_player_id": -4}, mover=0)  # over


def test_a_side_choice_is_a_turn_value_and_the_agent_opens_for_the_other():
    assert side_of("-1") == -1 and side_of("Black") == "black" and side_of(True) is None
    assert side_of("x" * 40) is None
    assert agent_opens({"current_player": 1}, side="-1")
    assert not agent_opens({"current_player": 1}, side=1)
    assert not agent_opens({"current_player": 1}, side=None)


@pytest.fixture
def client(monkeypatch):
    monkeypatch.setenv("OPENENV_AGENT", "random")
    with TestClient(create_app(Connect4Environment)) as client:
        yield client


def pieces(client: TestClient, tab: str) -> tuple[int, int]:
    """(the visitor's pieces, the opponent's) on the tab's board."""
    tab_ = client.app.state.openenv.web["controller"].tabs.by_key(tab)
    board = tab_.episode.observation["board"]
    cells = [cell for row in board for cell in row]
    return cells.count(1), cells.count(-1)


def test_with_the_built_in_opponent_the_agent_never_moves_the_visitors_piece(client):
    tab = client.post("/web/stage/open", json={}).json()["tab"]  # opponent: random (default)
    for move in range(1, 6):
        answer = client.post("/web/stage/act", json={"tab": tab, "index": 3, "reply": True}).json()
        assert answer["ok"], answer
        if answer["done"]:
            break
        # One piece of the visitor's per press, one of the built-in opponent's in reply: the
        # agent, whose answer was asked for, has not played the visitor's side.
        assert pieces(client, tab) == (move, move)
    steps = client.app.state.openenv.web["controller"].tabs.by_key(tab).episode.steps
    assert not any((s.get("label") or "").startswith("🤖") for s in steps)
