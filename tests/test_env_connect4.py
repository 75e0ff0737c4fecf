"""Connect Four over the wire: wins, losses to a blocking search, two humans, illegal columns."""

from __future__ import annotations

import pytest
from connect4_env import Connect4Action, Connect4Env

from openenv.core import ClientError
from tests.conftest import env_fixtures

url, env = env_fixtures("connect4_env.server.app:app", Connect4Env)


def drop(env, column: int):
    return env.step(Connect4Action(column=column))


def test_four_in_a_column_beats_the_random_opponent(env):
    for seed in range(30):
        env.reset(seed=seed, opponent="random")
        results = [drop(env, 0) for _ in range(3)]
        if any(r.observation.opponent_column == 0 for r in results):
            continue  # the random opponent blocked column 0 with this seed
        win = drop(env, 0)
        break
    else:
        pytest.fail("the random opponent blocked column 0 for 30 seeds in a row")
    assert all(not r.done and r.reward == 0 for r in results)
    assert all(r.observation.opponent_column is not None for r in results)
    assert win.done and win.reward == pytest.approx(1.0)
    assert win.observation.winner == 1 and win.observation.opponent_column is None
    assert [row[0] for row in win.observation.board[-4:]] == [1, 1, 1, 1]
    assert env.state().winner == 1


def test_the_search_opponent_blocks_a_stacked_column(env):
    env.reset(seed=0, opponent="search", depth=2)
    result = drop(env, 6)
    while not result.done and 6 in result.observation.legal_actions:
        result = drop(env, 6)
    assert result.observation.winner != 1
    assert -1 in [row[6] for row in result.observation.board]


def test_the_search_opponent_wins_against_a_naive_agent(env):
    obs = env.reset(seed=0, opponent="search", depth=3).observation
    result = None
    while not obs.done:
        result = drop(env, obs.legal_actions[0])  # always the leftmost open column
        obs = result.observation
    assert obs.winner == -1 and result.reward == pytest.approx(-1.0)
    assert obs.legal_actions == []


def test_two_humans_alternate_and_the_second_player_can_win(env):
    obs = env.reset(seed=0, opponent="human").observation
    assert obs.current_player == 1
    players, result = [], None
    for column in [0, 1, 0, 1, 0, 1, 2, 1]:
        players.append(env.state().next_player)
        result = drop(env, column)
        assert result.observation.opponent_column is None
    assert players == [1, -1, 1, -1, 1, -1, 1, -1]
    assert result.done and result.observation.winner == -1
    assert result.reward == pytest.approx(1.0)  # the reward belongs to the player who moved


def test_a_full_or_missing_column_is_refused_and_the_board_is_unchanged(env):
    env.reset(seed=0, opponent="human")
    for _ in range(6):
        drop(env, 3)
    assert 3 not in env.step(Connect4Action(column=0)).observation.legal_actions
    before = env.state()
    for column, reason in ((3, "full"), (7, "does not exist"), (-1, "does not exist")):
        with pytest.raises(ClientError) as refused:
            drop(env, column)
        assert refused.value.server_code == "VALIDATION_ERROR"
        assert reason in refused.value.message
        assert env.state() == before
    assert not drop(env, 4).done  # the same player keeps the turn and plays on


def test_illegal_move_end_option_loses_with_a_penalty(env):
    env.reset(seed=0, opponent="random", illegal_move="end")
    before = env.state().board
    result = drop(env, 9)
    assert result.done and result.reward == pytest.approx(-1.0)
    assert "does not exist" in result.observation.metadata["illegal_move"]
    assert result.observation.board == before


def test_the_opponent_can_open_the_game(env):
    obs = env.reset(seed=0, opponent="search", agent_starts=False).observation
    assert obs.opponent_column == 3  # the search opens in the centre
    assert obs.board[-1][3] == -1 and obs.current_player == 1


def test_the_same_seed_gives_the_same_episode(env):
    def episode():
        env.reset(seed=21, opponent="random")
        return [drop(env, c).observation.opponent_column for c in (3, 3, 2, 4)]

    assert episode() == episode()


def test_an_unknown_opponent_is_refused(env):
    with pytest.raises(ClientError, match="should be 'random', 'search' or 'human'"):
        env.reset(opponent="grandmaster")
