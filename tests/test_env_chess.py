"""Chess over the wire: checkmate, discounted rewards, opponents, illegal moves, seeds."""

from __future__ import annotations

import random

import chess
import pytest
from chess_env import ChessAction, ChessEnv

from openenv.core import ClientError
from openenv.testing import check_env
from tests.conftest import env_fixtures

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


url, env = env_fixtures("chess_env.server.app:app", ChessEnv)


def play(env, move: str):
    return env.step(ChessAction(move=move))


def test_fools_mate_in_self_play_ends_with_discounted_rewards(env):
    obs = env.reset(seed=1, opponent="self").observation
    assert obs.agent_color == "both" and obs.turn == "white" and len(obs.legal_moves) == 20
    results = [play(env, move) for move in FOOLS_MATE]
    assert [r.done for r in results] == [False, False, False, True]
    assert all(r.reward == 0 for r in results[:3])
    last = results[-1]
    assert last.reward == pytest.approx(1.0)  # black, the side that just moved, delivered mate
    assert last.observation.result == "0-1" and last.observation.is_check
    assert last.observation.legal_moves == []
    meta = last.observation.metadata
    g = meta["gamma"]
    assert g == pytest.approx(0.99) and meta["termination"] == "checkmate"
    # one entry per agent move; in self-play each move is scored from its own side's view
    assert meta["discounted_rewards"] == pytest.approx([-(g**3), g**2, -g, 1.0])
    state = env.state()
    assert state.move_history == FOOLS_MATE and state.result == "0-1" and state.step_count == 4


def test_discounted_rewards_only_on_the_terminal_observation(env):
    env.reset(seed=1, opponent="self", gamma=0.5)
    first = play(env, "f2f3")
    assert "discounted_rewards" not in first.observation.metadata
    assert "evaluation" in first.observation.metadata
    *_, last = [play(env, m) for m in FOOLS_MATE[1:]]
    assert last.observation.metadata["gamma"] == 0.5
    assert last.observation.metadata["discounted_rewards"] == pytest.approx([-0.125, 0.25, -0.5, 1])


def test_an_illegal_move_is_refused_and_changes_nothing(env):
    start = env.reset(seed=2, opponent="random", agent_color="white").observation
    before = env.state()
    for bad in ["e2e5", "e7e5", "banana", "0000"]:
        with pytest.raises(ClientError) as err:
            play(env, bad)
        assert err.value.server_code == "VALIDATION_ERROR" and "illegal move" in str(err.value)
    after = env.state()
    assert after.fen == before.fen == start.fen and after.step_count == 0
    assert play(env, "e2e4").observation.agent_move == "e2e4"  # the session is still usable


def test_illegal_move_end_policy_forfeits_with_a_penalty(env):
    env.reset(seed=2, opponent="random", agent_color="white", illegal_move="end")
    fen = play(env, "d2d4").observation.fen
    result = play(env, "e1e8")
    assert result.done and result.reward == pytest.approx(-1.0)
    assert result.observation.fen == fen and result.observation.result == "0-1"
    assert "e1e8" in result.observation.metadata["illegal_move"]
    assert result.observation.metadata["discounted_rewards"] == pytest.approx([-1.0])


def test_the_opponent_replies_inside_the_step_and_the_observation_says_so(env):
    env.reset(seed=4, opponent="alphabeta", opponent_depth=1, agent_color="white")
    obs = play(env, "e2e4").observation
    assert obs.opponent_move is not None and obs.turn == "white"
    assert obs.opponent_move_san in obs.message
    assert env.state().move_history == ["e2e4", obs.opponent_move]


def test_playing_black_the_opponent_opens_at_reset(env):
    obs = env.reset(seed=5, opponent="random", agent_color="black").observation
    assert obs.agent_color == "black" and obs.turn == "black"
    assert obs.opponent_move is not None and obs.opponent_move_san in obs.message


def test_a_promotion_without_its_piece_is_refused_with_the_fix(env):
    env.reset(seed=0, opponent="self", fen="8/4P3/8/8/8/8/k7/6K1 w - - 0 1")
    with pytest.raises(ClientError, match="needs a promotion piece: e7e8q"):
        play(env, "e7e8")
    obs = play(env, "e7e8q").observation
    assert obs.fen.startswith("4Q3/")


def test_san_input_is_accepted(env):
    env.reset(seed=6, opponent="self")
    assert play(env, "Nf3").observation.agent_move == "g1f3"


def test_the_same_seed_replays_the_same_game_against_random(env):
    def episode() -> list[str]:
        obs = env.reset(seed=11, opponent="random").observation
        fens = [obs.fen]
        while not obs.done and len(fens) < 12:
            obs = play(env, sorted(obs.legal_moves)[0]).observation
            fens.append(obs.fen)
        return fens

    assert episode() == episode()


def test_moonfish_falls_back_to_our_engine_when_it_is_not_installed(env):
    obs = env.reset(seed=0, agent_color="white").observation
    state = env.state()
    assert state.opponent == "moonfish"
    try:
        import moonfish  # noqa: F401
    except ModuleNotFoundError:
        assert state.opponent_engine.startswith("alphabeta (moonfish is not installed")
        assert "alphabeta" in obs.message
    else:
        assert state.opponent_engine == "moonfish"


def test_bad_reset_options_are_refused_with_the_accepted_values(env):
    for options, expected in [
        ({"opponent": "stockfish"}, "should be 'moonfish', 'alphabeta', 'random' or 'self'"),
        ({"opponent_depth": 9}, "opponent_depth"),
        ({"fen": "not a fen"}, "fen"),
        ({"illegal_move": "ignore"}, "should be 'refuse' or 'end'"),
    ]:
        with pytest.raises(ClientError) as err:
            env.reset(seed=0, **options)
        assert expected in str(err.value)


def test_the_engine_takes_a_mate_in_one_and_evaluates_material():
    from chess_env.server.engine import best_move, evaluate

    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    assert best_move(board, 2, random.Random(0)) == chess.Move.from_uci("a1a8")
    assert evaluate(board) > 400  # a rook up for White
    board.push_uci("a1a8")
    assert evaluate(board) == 100_000  # Black is mated


def test_rendering_marks_the_last_move_and_offers_a_button_per_legal_move():
    from chess_env.server.environment import ChessEnvironment

    env = ChessEnvironment()
    env.reset(seed=0, opponent="self")
    choices = env.legal_actions()
    assert len(choices) == 20 and {"Nf3", "e4"} <= {c.label for c in choices}
    assert {c.action["move"] for c in choices} >= {"g1f3", "e2e4"}
    before = env.render().markup
    env.step(ChessAction(move="e2e4"))
    after = env.render().markup
    assert after != before and "lastmove" in after


def test_check_env_passes_in_self_play_and_against_random_moves():
    from chess_env.server.environment import ChessEnvironment

    for opponent in ("self", "random"):  # the default opponent runs in test_check_env_all
        check_env(ChessEnvironment(), reset_kwargs={"opponent": opponent})


def components(result) -> dict[str, float]:
    """The step's reward components, after checking the reward is their weighted sum."""
    meta = result.observation.metadata
    comps, weights = meta["reward_components"], meta["reward_weights"]
    assert weights == {"result": 1.0, "illegal_move": -1.0}
    assert result.reward == pytest.approx(sum(comps[k] * weights[k] for k in comps))
    return comps


def test_every_reward_over_a_seeded_episode_is_the_weighted_sum_of_its_components(env):
    obs = env.reset(seed=12, opponent="random", agent_color="white", max_moves=30).observation
    results = []
    while not obs.done:
        results.append(play(env, sorted(obs.legal_moves)[len(results) % len(obs.legal_moves)]))
        obs = results[-1].observation
    comps = [components(r) for r in results]
    assert all(c == {"result": 0.0, "illegal_move": 0.0} for c in comps[:-1])
    meta = obs.metadata
    assert meta["reward_components"]["result"] == {"1-0": 1.0, "0-1": -1.0}.get(obs.result, 0.0)
    assert len(meta["discounted_rewards"]) == len(results)
    assert meta["discounted_rewards"][-1] == pytest.approx(results[-1].reward)

    env.reset(seed=1, opponent="self")
    mate = [components(play(env, move))["result"] for move in FOOLS_MATE]
    assert mate == [0.0, 0.0, 0.0, 1.0]


def test_a_forfeit_is_scored_by_the_illegal_move_component(env):
    env.reset(seed=2, opponent="random", agent_color="white", illegal_move="end")
    play(env, "d2d4")
    result = play(env, "e1e8")
    assert components(result) == {"result": 0.0, "illegal_move": 1.0}
    assert result.reward == pytest.approx(-1.0)
