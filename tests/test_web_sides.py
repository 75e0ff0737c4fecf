"""The playground's "you play" names: an env's ``sides``, or per game its ``sides_for``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from openenv.web.page.sides import GENERIC_SIDES, two_player_sides


def ctx_of(env_cls, tags=()):
    return SimpleNamespace(env_cls=env_cls, manifest=SimpleNamespace(tags=list(tags)))


def test_declared_sides_name_the_choice():
    from connect4_env.server.environment import Connect4Environment

    assert two_player_sides(ctx_of(Connect4Environment)) == ("Red", "Yellow")


def test_a_two_player_tag_without_names_gets_first_and_second():
    assert two_player_sides(ctx_of(object, ["two-player"])) == GENERIC_SIDES
    assert two_player_sides(ctx_of(object, ["puzzle"])) is None


def test_chess_names_the_side_that_moves_first():
    from chess_env.server.environment import ChessEnvironment

    assert two_player_sides(ctx_of(ChessEnvironment)) == ("White", "Black")
    black_first = {"fen": "4k3/8/8/8/8/8/8/4K3 b - - 0 1"}
    assert ChessEnvironment.sides_for(black_first) == ("Black", "White")


def test_openspiel_names_each_games_sides():
    pytest.importorskip("pyspiel")
    from openspiel_env.server.environment import OpenSpielEnvironment as Env

    assert two_player_sides(ctx_of(Env, ["multi-agent"])) == ("X", "O")
    assert Env.sides_for({"game_name": "connect_four"}) == ("Red", "Yellow")
    assert Env.sides_for({"game_name": "breakthrough"}) == ("Black", "White")
    assert Env.sides_for({"game_name": "kuhn_poker"}) == ("first player", "second player")


def test_textarena_one_player_games_have_no_choice():
    from textarena_env.server.environment import TextArenaEnvironment as Env

    assert two_player_sides(ctx_of(Env, ["two-player"])) is None  # Wordle by default
    assert Env.sides_for({"env_id": "TicTacToe-v0"}) == ("O", "X")
    assert Env.sides_for({"env_id": "ConnectFour-v0"}) == ("Red (X)", "Yellow (O)")
