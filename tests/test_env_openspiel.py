"""OpenSpiel over the wire: wins vs a second player, opponents, chance, illegal actions, seeds."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel", reason="needs the openspiel extra")

from openspiel_env import OpenSpielAction, OpenSpielEnv

from openenv.core import ClientError
from openenv.testing import check_env
from tests.conftest import env_fixtures

url, env = env_fixtures("openspiel_env.server.app:app", OpenSpielEnv)


def act(env, action_id: int):
    return env.step(OpenSpielAction(action_id=action_id))


def test_tic_tac_toe_top_row_wins_against_a_second_player(env):
    obs = env.reset(seed=0, game_name="tic_tac_toe", opponent_policy="human").observation
    assert obs.legal_actions == list(range(9)) and obs.game_phase == "initial"
    assert obs.legal_action_names[0] == "x(0,0)"
    results = [act(env, a) for a in [0, 3, 1, 4]]  # x, o, x, o
    assert [r.observation.current_player_id for r in results] == [1, 0, 1, 0]
    assert all(not r.done and r.reward == 0 for r in results)
    win = act(env, 2)
    assert win.done and win.reward == pytest.approx(1.0)
    assert win.observation.returns == [1.0, -1.0] and win.observation.game_phase == "terminal"
    assert win.observation.observation_string.splitlines()[0] == "xxx"
    assert env.state().history == [0, 3, 1, 4, 2]


def test_the_second_player_gets_its_own_reward_in_human_mode(env):
    env.reset(seed=0, game_name="tic_tac_toe", opponent_policy="human")
    for a in [0, 3, 1, 4, 8]:
        act(env, a)
    result = act(env, 5)  # o completes the middle row
    assert result.done and result.reward == pytest.approx(1.0)
    assert result.observation.returns == [-1.0, 1.0]


def test_the_opponent_moves_inside_the_step_and_is_named(env):
    env.reset(seed=1, game_name="tic_tac_toe", opponent_policy="first")
    obs = act(env, 4).observation
    assert obs.opponent_last_action == 0 and obs.opponent_last_action_name == "o(0,0)"
    assert obs.current_player_id == 0 and "Opponent played o(0,0)" in obs.message
    assert env.state().history == [4, 0]


def test_agent_as_second_player_sees_the_opening_move(env):
    obs = env.reset(seed=2, game_name="connect_four", agent_player=1).observation
    assert obs.opponent_last_action is not None and obs.current_player_id == 1
    assert len(obs.legal_actions) == 7


def test_an_illegal_action_is_refused_and_changes_nothing(env):
    env.reset(seed=3, game_name="tic_tac_toe", opponent_policy="human")
    act(env, 4)
    before = env.state()
    for bad in (4, 9, -1):
        with pytest.raises(ClientError) as err:
            act(env, bad)
        assert err.value.server_code == "VALIDATION_ERROR" and "not legal" in str(err.value)
    assert env.state() == before
    assert act(env, 0).observation.current_player_id == 0


def test_the_end_policy_ends_with_a_penalty(env):
    env.reset(seed=3, game_name="tic_tac_toe", opponent_policy="human", illegal_move="end")
    result = act(env, 42)
    assert result.done and result.reward == pytest.approx(-1.0)
    assert "42" in result.observation.metadata["illegal_move"]


def test_kuhn_poker_deals_from_the_seed_and_pays_out(env):
    def episode(seed: int):
        obs = env.reset(seed=seed, game_name="kuhn_poker", opponent_policy="last").observation
        trace = [(obs.info_state, obs.legal_action_names)]
        while not obs.done:
            result = act(env, obs.legal_actions[-1])  # always bet / call
            obs = result.observation
            trace.append((obs.info_state, result.reward))
        return trace, obs

    trace, last = episode(7)
    assert trace == episode(7)[0]
    assert trace[0][1] == ["Pass", "Bet"]
    assert last.game_phase == "terminal" and abs(last.returns[0]) == 2.0  # bet and called
    first_views = {tuple(episode(seed)[0][0][0]) for seed in range(8)}
    assert len(first_views) > 1  # the deal depends on the seed


def test_breakthrough_and_games_by_name_load(env):
    obs = env.reset(seed=0, game_name="breakthrough").observation
    assert len(obs.legal_actions) == 22 and "abcdefgh" in obs.observation_string
    obs = env.reset(seed=0, game_name="tic_tac_toe", game_params={}).observation
    assert obs.game_name == "tic_tac_toe"
    with pytest.raises(ClientError, match="unknown OpenSpiel game"):
        env.reset(game_name="no_such_game")
    with pytest.raises(ClientError, match="opponent_policy"):
        env.reset(opponent_policy="minimax")


def test_the_same_seed_replays_random_opponents(env):
    def episode() -> list[int]:
        obs = env.reset(seed=9, game_name="connect_four").observation
        while not obs.done:
            obs = act(env, obs.legal_actions[0]).observation
        return env.state().history

    assert episode() == episode()


def test_a_board_of_clickable_cells_and_buttons_with_number_keys():
    from openspiel_env.server.environment import OpenSpielEnvironment

    env = OpenSpielEnvironment()
    env.reset(seed=0, game_name="tic_tac_toe", opponent_policy="human")
    choices = env.legal_actions()
    assert [c.key for c in choices] == [str(i) for i in range(1, 10)]
    assert choices[4].label == "x(1,1)" and choices[4].action == {"action_id": 4}
    before = env.render()
    assert before.shape == (3, 3) and before.cell_action(1, 1) == {"action_id": 4}
    env.step(OpenSpielAction(**before.cell_action(1, 1)))
    after = env.render()
    assert after.rows[1][1].glyph == "✕" and after.rows[1][1].action is None  # taken
    assert after.cell_action(0, 0) == {"action_id": 0}  # the second player's turn, clickable


def test_games_without_a_board_keep_their_text():
    from openspiel_env.server.environment import OpenSpielEnvironment

    env = OpenSpielEnvironment()
    env.reset(seed=0, game_name="goofspiel")
    assert "goofspiel" in env.render().text


def test_check_env_passes_for_the_featured_games():
    from openspiel_env.server.environment import OpenSpielEnvironment

    for game in ("connect_four", "kuhn_poker", "breakthrough", "goofspiel"):
        check_env(OpenSpielEnvironment(), reset_kwargs={"game_name": game})


def test_every_game_the_playground_offers_plays_to_its_end():
    from openspiel_env.server.environment import FEATURED_GAMES, GameName, OpenSpielEnvironment

    offered = GameName.__metadata__[0].examples
    assert offered == list(FEATURED_GAMES)  # every featured game is registered here
    for game in offered:
        env = OpenSpielEnvironment()
        obs = env.reset(seed=0, game_name=game, opponent_policy="first")
        for _ in range(500):  # the first legal action each turn ends every one of them soon
            if obs.done:
                break
            obs = env.step(OpenSpielAction(action_id=obs.legal_actions[0]))
        assert obs.done, game
        env.close()
