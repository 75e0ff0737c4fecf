"""Snake over the wire: eating grows the snake, walls and the body kill, reversal is refused."""

from __future__ import annotations

from collections import deque

import pytest
from snake_env import SnakeAction, SnakeEnv

from openenv.core import ClientError
from tests.conftest import env_fixtures

DELTAS = {"UP": (0, -1), "DOWN": (0, 1), "LEFT": (-1, 0), "RIGHT": (1, 0)}
CLOCKWISE = {"UP": "RIGHT", "RIGHT": "DOWN", "DOWN": "LEFT", "LEFT": "UP"}
BODY, HEAD, FOOD, OUTSIDE = 1, 2, 3, 4


url, env = env_fixtures("snake_env.server.app:app", SnakeEnv)


def find(grid: list[list[int]], code: int) -> tuple[int, int]:
    return next((c, r) for r, row in enumerate(grid) for c, v in enumerate(row) if v == code)


def path_to_food(grid: list[list[int]]) -> list[str]:
    """Directions from the head to the food around the body (the body counts as a wall)."""
    start, goal = find(grid, HEAD), find(grid, FOOD)
    parents: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
    queue = deque([start])
    while queue:
        col, row = queue.popleft()
        for name, (dc, dr) in DELTAS.items():
            nxt = (col + dc, row + dr)
            inside = 0 <= nxt[1] < len(grid) and 0 <= nxt[0] < len(grid[0])
            if inside and grid[nxt[1]][nxt[0]] != BODY and nxt not in parents:
                parents[nxt] = ((col, row), name)
                queue.append(nxt)
    moves, cell = [], goal
    while parents[cell] is not None:
        cell, move = parents[cell]
        moves.append(move)
    return moves[::-1]


def eat_once(env, grid):
    result = None
    for move in path_to_food(grid):
        result = env.step(SnakeAction(action=move))
    return result


def test_eating_grows_the_snake_and_pays_the_food_reward(env):
    obs = env.reset(seed=5, food_reward=2.5).observation
    assert obs.length == 3 and obs.alive
    result = eat_once(env, obs.grid)
    assert result.reward == pytest.approx(2.5)
    assert result.observation.length == 4 and result.observation.episode_fruits == 1
    assert result.observation.episode_score == pytest.approx(2.5)
    assert sum(v == FOOD for row in result.observation.grid for v in row) == 1  # new food


def test_hitting_a_wall_kills_with_the_death_reward(env):
    obs = env.reset(seed=1, width=8, height=8, death_reward=-5.0).observation
    head_col, _ = find(obs.grid, HEAD)
    result = None
    for _ in range(8 - head_col):
        result = env.step(SnakeAction(action="RIGHT"))
    assert result.done and not result.observation.alive
    assert result.reward == pytest.approx(-5.0)
    assert "wall" in result.observation.message


def test_running_into_its_own_body_kills(env):
    obs = env.reset(seed=2).observation
    result = None
    while obs.length < 5:
        result = eat_once(env, obs.grid)
        obs = result.observation
    head = find(obs.grid, HEAD)
    for turn in (CLOCKWISE, {v: k for k, v in CLOCKWISE.items()}):
        moves = [turn[obs.direction.value]]
        for _ in range(2):
            moves.append(turn[moves[-1]])
        col, row = head
        room = True
        for move in moves[:2]:
            col, row = col + DELTAS[move][0], row + DELTAS[move][1]
            room = room and 0 <= col < 10 and 0 <= row < 10 and obs.grid[row][col] == 0
        if room:
            break
    else:
        pytest.fail("no room to curl round; pick another seed")
    for move in moves:
        result = env.step(SnakeAction(action=move))
    assert result.done and not result.observation.alive
    assert "own body" in result.observation.message


def test_turning_straight_back_is_refused_and_changes_nothing(env):
    obs = env.reset(seed=3).observation
    assert obs.direction.value == "RIGHT" and "LEFT" not in obs.legal_actions
    before = env.state()
    with pytest.raises(ClientError) as refused:
        env.step(SnakeAction(action="LEFT"))
    assert refused.value.server_code == "VALIDATION_ERROR"
    assert "straight back" in refused.value.message
    assert env.state() == before
    assert env.step(SnakeAction(action="UP")).observation.alive


def test_partial_observability_shows_a_window_around_the_head(env):
    obs = env.reset(seed=4, width=6, height=6, view_radius=2).observation
    assert len(obs.grid) == 5 and all(len(row) == 5 for row in obs.grid)
    assert obs.grid[2][2] == HEAD
    for _ in range(2):
        obs = env.step(SnakeAction(action="RIGHT")).observation
    assert obs.grid[2][2] == HEAD
    assert [row[4] for row in obs.grid] == [OUTSIDE] * 5  # the column past the right wall


def test_the_same_seed_gives_the_same_episode(env):
    moves = ["UP", "UP", "LEFT", "LEFT", "DOWN", "DOWN", "DOWN", "RIGHT"]

    def episode():
        first = env.reset(seed=9).observation
        return [first.grid] + [env.step(SnakeAction(action=m)).observation.grid for m in moves]

    assert episode() == episode()


def test_bad_options_are_refused(env):
    with pytest.raises(ClientError, match="width"):
        env.reset(width=2)
    with pytest.raises(ClientError, match="view_radius"):
        env.reset(view_radius=-1)


def test_view_radius_zero_observes_the_whole_board(env):
    obs = env.reset(seed=4, width=7, height=6, view_radius=0).observation
    assert len(obs.grid) == 6 and all(len(row) == 7 for row in obs.grid)


def assert_reward_is_its_weighted_components(result) -> str:
    """The reward equals Σ weight·score of its components; return the one that happened."""
    meta = result.observation.metadata
    comps, weights = meta["reward_components"], meta["reward_weights"]
    assert set(comps) == {"food", "death", "step", "illegal_move"}
    assert result.reward == pytest.approx(sum(comps[k] * weights[k] for k in comps))
    (happened,) = [k for k, v in comps.items() if v == 1.0]
    assert result.reward == pytest.approx(weights[happened])
    return happened


def test_every_reward_over_a_seeded_episode_is_the_weighted_sum_of_its_components(env):
    obs = env.reset(seed=7, width=6, height=6, food_reward=2.0, step_reward=-0.01).observation
    results = []
    for _ in range(2):
        for move in path_to_food(obs.grid):
            results.append(env.step(SnakeAction(action=move)))
        obs = results[-1].observation
    while not results[-1].done:
        direction = results[-1].observation.direction.value
        results.append(env.step(SnakeAction(action=direction)))
    outcomes = [assert_reward_is_its_weighted_components(r) for r in results]
    assert outcomes.count("food") == 2 and outcomes[-1] == "death" and "step" in outcomes
    weights = results[0].observation.metadata["reward_weights"]
    assert weights == {"food": 2.0, "death": -1.0, "step": -0.01, "illegal_move": -1.0}
    total = sum(r.reward for r in results)
    assert results[-1].observation.episode_score == pytest.approx(total)


def test_the_end_policy_scores_a_reversal_as_an_illegal_move(env):
    env.reset(seed=3, illegal_move="end")
    result = env.step(SnakeAction(action="LEFT"))
    assert result.done and result.reward == pytest.approx(-1.0)
    assert assert_reward_is_its_weighted_components(result) == "illegal_move"
    assert "straight back" in result.observation.metadata["illegal_move"]
