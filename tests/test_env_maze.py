"""The maze over the wire: a BFS path wins, walls refuse moves, seeds replay layouts."""

from __future__ import annotations

from collections import deque

import pytest
from maze_env import MazeAction, MazeEnv

from openenv.core import ClientError
from tests.conftest import env_fixtures

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
DELTAS = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}


url, env = env_fixtures("maze_env.server.app:app", MazeEnv)


def bfs_moves(maze: list[list[int]], start: list[int], goal: list[int]) -> list[int]:
    """Moves along a shortest path, computed from what the observation shows."""
    start_cell, goal_cell = tuple(start), tuple(goal)
    parents: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {start_cell: None}
    queue = deque([start_cell])
    while queue:
        col, row = queue.popleft()
        for move, (dc, dr) in DELTAS.items():
            nxt = (col + dc, row + dr)
            inside = 0 <= nxt[1] < len(maze) and 0 <= nxt[0] < len(maze[0])
            if inside and not maze[nxt[1]][nxt[0]] and nxt not in parents:
                parents[nxt] = ((col, row), move)
                queue.append(nxt)
    moves, cell = [], goal_cell
    while parents[cell] is not None:
        cell, move = parents[cell]
        moves.append(move)
    return moves[::-1]


def play(env, moves: list[int]):
    results = [env.step(MazeAction(action=m)) for m in moves]
    return results


@pytest.mark.parametrize("layout", ["classic", "zigzag", "rooms", "random"])
def test_a_shortest_path_reaches_the_exit_and_wins(env, layout):
    first = env.reset(seed=3, layout=layout).observation
    moves = bfs_moves(first.maze, first.current_position, first.exit_cell)
    assert moves, "every layout must be solvable"
    results = play(env, moves)
    last = results[-1]
    assert last.done and last.observation.status == "win"
    assert last.reward == pytest.approx(10.0)
    assert last.observation.current_position == first.exit_cell
    assert all(not r.done for r in results[:-1])
    assert all(r.reward == pytest.approx(-0.05) for r in results[:-1])  # no cell visited twice
    assert env.state().status == "win"


def test_a_move_into_a_wall_is_refused_and_changes_nothing(env):
    obs = env.reset(seed=1, layout="classic").observation
    col, row = obs.current_position
    blocked = [
        m
        for m, (dc, dr) in DELTAS.items()
        if 0 <= col + dc < 8 and 0 <= row + dr < 8 and obs.maze[row + dr][col + dc] == 1
    ]
    assert blocked, "the classic start has a wall next to it"
    assert blocked[0] not in obs.legal_actions
    before = env.state()
    with pytest.raises(ClientError) as refused:
        env.step(MazeAction(action=blocked[0]))
    assert refused.value.server_code == "VALIDATION_ERROR"
    assert "wall" in refused.value.message
    assert env.state() == before
    moved = env.step(MazeAction(action=obs.legal_actions[0]))  # the session is still usable
    assert moved.observation.current_position != obs.current_position


def test_leaving_the_board_is_refused_too(env):
    env.reset(seed=1, layout="classic")  # starts in the top-left corner
    with pytest.raises(ClientError, match="leaves the maze"):
        env.step(MazeAction(action=UP))
    assert env.state().step_count == 0


def test_illegal_move_end_option_ends_with_a_penalty_and_keeps_the_agent(env):
    obs = env.reset(seed=1, layout="classic", illegal_move="end").observation
    result = env.step(MazeAction(action=UP))
    assert result.done and result.reward == pytest.approx(-1.0)
    assert "leaves the maze" in result.observation.metadata["illegal_move"]
    assert result.observation.current_position == obs.current_position


def test_revisiting_costs_more_and_running_out_of_steps_loses(env):
    env.reset(seed=0, layout="zigzag", max_steps=3)
    first = env.step(MazeAction(action=RIGHT))
    back = env.step(MazeAction(action=LEFT))
    last = env.step(MazeAction(action=RIGHT))
    assert first.reward == pytest.approx(-0.05)
    assert back.reward == pytest.approx(-0.25)
    assert last.done and last.observation.status == "lose"


def test_the_same_seed_gives_the_same_random_maze(env):
    a = env.reset(seed=42, layout="random").observation
    b = env.reset(seed=42, layout="random").observation
    others = {str(env.reset(seed=s, layout="random").observation.maze) for s in range(5)}
    assert a.maze == b.maze and a.exit_cell == b.exit_cell
    assert len(others) > 1, "different seeds should give different mazes"


def test_an_unknown_layout_is_refused_with_the_choices(env):
    with pytest.raises(ClientError, match="classic"):
        env.reset(layout="labyrinth")
