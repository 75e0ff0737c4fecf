"""2048 over the wire: merges score, the target tile wins, a no-op move is refused."""

from __future__ import annotations

import pytest
from game_2048_env import Game2048Action, Game2048Env

from openenv.core import ClientError
from tests.conftest import env_fixtures

PREFERENCE = ["LEFT", "DOWN", "RIGHT", "UP"]


url, env = env_fixtures("game_2048_env.server.app:app", Game2048Env)


def total(board: list[list[int]]) -> int:
    return sum(map(sum, board))


def slide(env, direction: str):
    return env.step(Game2048Action(action=direction))


def test_reaching_the_target_tile_wins_and_rewards_add_up_to_the_score(env):
    obs = env.reset(seed=1, target=32).observation
    assert sum(v > 0 for row in obs.board for v in row) == 2
    rewards, result = [], None
    while not obs.done:
        move = next(d for d in PREFERENCE if d in obs.legal_actions)
        before = obs.board
        result = slide(env, move)
        obs = result.observation
        rewards.append(result.reward)
        spawned = obs.spawned[2] if obs.spawned else 0
        assert total(obs.board) == total(before) + spawned  # merging keeps the sum of tiles
    assert obs.won and obs.max_tile >= 32
    assert sum(rewards) == obs.score > 0
    assert env.state().won


def test_a_move_that_changes_nothing_is_refused_and_the_board_stays(env):
    obs = env.reset(seed=2).observation
    for _ in range(60):
        stuck = [d for d in PREFERENCE if d not in obs.legal_actions]
        if stuck:
            break
        obs = slide(env, PREFERENCE[0]).observation
    else:
        pytest.fail("no blocked direction within 60 moves")
    before = env.state()
    with pytest.raises(ClientError) as refused:
        slide(env, stuck[0])
    assert refused.value.server_code == "VALIDATION_ERROR"
    assert "changes nothing" in refused.value.message
    assert env.state() == before


def test_illegal_move_end_option_ends_with_a_penalty(env):
    obs = env.reset(seed=2, illegal_move="end").observation
    while all(d in obs.legal_actions for d in PREFERENCE):
        obs = slide(env, "LEFT").observation
    stuck = next(d for d in PREFERENCE if d not in obs.legal_actions)
    result = slide(env, stuck)
    assert result.done and result.reward == pytest.approx(-1.0)
    assert result.observation.board == obs.board


def merge_points(board: list[list[int]], direction: str) -> int:
    """Points a slide scores: every pair of equal neighbours merges once, nearest the wall first."""
    lines = {
        "LEFT": board,
        "RIGHT": [row[::-1] for row in board],
        "UP": [list(col) for col in zip(*board, strict=True)],
        "DOWN": [list(col)[::-1] for col in zip(*board, strict=True)],
    }[direction]
    points = 0
    for line in lines:
        tiles = [v for v in line if v]
        while len(tiles) > 1:
            if tiles[0] == tiles[1]:
                points += 2 * tiles[0]
                tiles = tiles[2:]
            else:
                tiles = tiles[1:]
    return points


def test_every_reward_is_the_sum_of_the_merged_tiles(env):
    obs = env.reset(seed=3).observation
    merges = 0
    for _ in range(40):
        move = next(d for d in PREFERENCE if d in obs.legal_actions)
        result = slide(env, move)
        assert result.reward == merge_points(obs.board, move)
        assert result.observation.score == obs.score + result.reward
        merges += result.reward > 0
        obs = result.observation
        if obs.done:
            break
    assert merges > 0


def test_the_same_seed_gives_the_same_episode(env):
    moves = ["LEFT", "UP", "RIGHT", "DOWN", "LEFT", "UP"]

    def episode():
        boards = [env.reset(seed=8).observation.board]
        for move in moves:
            try:
                boards.append(slide(env, move).observation.board)
            except ClientError:  # a refused move is part of the episode too
                boards.append("refused")
        return boards

    assert episode() == episode()


def test_a_bad_target_is_refused(env):
    with pytest.raises(ClientError, match="power of two"):
        env.reset(target=100)
