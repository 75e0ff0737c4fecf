"""Chess: a game that is over at reset says so (done, result) instead of looking playable."""

from __future__ import annotations

import pytest
from chess_env import ChessAction, ChessEnv
from chess_env.server.environment import ChessEnvironment

from openenv.core import ClientError, ResetNeeded
from tests.conftest import serve

FOOLS_MATE_OVER = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
WHITE_MATES_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # Ra8#


@pytest.fixture
def env():
    environment = ChessEnvironment()
    yield environment
    environment.close()


def test_a_checkmated_fen_is_reported_over_at_reset(env):
    obs = env.reset(seed=0, opponent="self", fen=FOOLS_MATE_OVER)
    assert obs.done and obs.result == "0-1" and obs.legal_moves == []
    assert obs.metadata["termination"] == "checkmate"
    assert obs.metadata["discounted_rewards"] == [] and obs.reward == 0.0
    assert "Game over: 0-1 (checkmate)" in obs.message
    assert env.state.result == "0-1" and env.legal_actions() == []
    with pytest.raises(ResetNeeded):
        env.step(ChessAction(move="a2a3"))


def test_a_stalemated_fen_is_a_draw_at_reset_against_an_engine(env):
    obs = env.reset(seed=0, opponent="alphabeta", agent_color="black", fen=STALEMATE)
    assert obs.done and obs.result == "1/2-1/2"
    assert obs.metadata["termination"] == "stalemate"
    assert obs.opponent_move is None  # nobody moved


def test_an_opening_move_that_mates_ends_the_game_at_reset(env):
    obs = env.reset(seed=0, opponent="alphabeta", agent_color="black", fen=WHITE_MATES_IN_ONE)
    assert obs.opponent_move == "a1a8" and obs.opponent_move_san == "Ra8#"
    assert obs.done and obs.result == "1-0" and obs.legal_moves == []
    assert obs.metadata["termination"] == "checkmate"
    assert "Opponent opened with Ra8#" in obs.message and "Game over: 1-0" in obs.message
    assert env.state.result == "1-0" and env.state.move_history == ["a1a8"]


def test_an_opening_move_that_reaches_max_moves_is_a_draw_at_reset(env):
    obs = env.reset(seed=0, opponent="random", agent_color="black", max_moves=1)
    assert obs.done and obs.result == "1/2-1/2" and obs.opponent_move is not None
    assert obs.metadata["termination"] == "move limit of 1 half-moves"


def test_a_live_fen_still_starts_a_playable_game(env):
    obs = env.reset(seed=0, opponent="alphabeta", agent_color="white", fen=WHITE_MATES_IN_ONE)
    assert not obs.done and obs.result is None and "a1a8" in obs.legal_moves
    assert env.step(ChessAction(move="a1a8")).result == "1-0"


def test_over_the_wire_the_client_sees_done_and_cannot_step():
    with (
        serve("chess_env.server.app:app", env={"ENABLE_WEB_INTERFACE": "0"}) as url,
        ChessEnv(base_url=url).sync() as client,
    ):
        result = client.reset(opponent="alphabeta", agent_color="black", fen=WHITE_MATES_IN_ONE)
        assert result.done and result.observation.result == "1-0"
        with pytest.raises(ClientError, match="reset"):
            client.step(ChessAction(move="g8h8"))
