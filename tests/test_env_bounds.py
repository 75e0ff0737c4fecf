"""Reset options cannot make one episode cost a public server more than a bound: each env refuses
an option past its bound with an InvalidAction that names the bound, and the env still works."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from openenv.core import InvalidAction
from openenv.core.bounds import MAX_SETTINGS_BYTES, check_settings


def environment(module: str, cls: str, extra: str | None = None) -> Any:
    if extra is not None:
        pytest.importorskip(extra, reason=f"needs {extra}")
    return getattr(importlib.import_module(module), cls)()


def refused(env: Any, says: str, **options: Any) -> None:
    with pytest.raises(InvalidAction) as caught:
        env.reset(seed=0, **options)
    assert says in str(caught.value), str(caught.value)


def test_settings_past_their_size_or_number_bound_are_refused() -> None:
    check_settings("env_kwargs", {"g": 9.8, "layers": [1, 2, {"deep": -3}]})
    with pytest.raises(InvalidAction, match="numbers from -10000 to 10000"):
        check_settings("env_kwargs", {"a": [{"b": 10**6}]})
    with pytest.raises(InvalidAction, match=f"at most {MAX_SETTINGS_BYTES} are accepted"):
        check_settings("task_config", {"text": "x" * MAX_SETTINGS_BYTES})
    with pytest.raises(InvalidAction, match="plain JSON"):
        check_settings("task_config", {"x": object()})


def test_atari_bounds_frameskip_and_episode_length() -> None:
    env = environment("atari_env.server.environment", "AtariEnvironment", "ale_py")
    try:
        refused(env, "less than or equal to 32", game_name="pong", frameskip=33)
        refused(env, "less than or equal to 1000000", game_name="pong", max_episode_steps=10**9)
        assert env.reset(seed=0, game_name="pong", frameskip=32).legal_actions
    finally:
        env.close()


def test_dm_control_bounds_the_frame_it_renders(monkeypatch) -> None:
    env = environment("dm_control_env.server.environment", "DMControlEnvironment", "dm_control")
    try:
        refused(env, "render_height=5000: should be less than or equal to 640", render_height=5000)
        refused(env, "render_width=641: should be less than or equal to 640", render_width=641)
        refused(env, "render_width=0: should be greater than or equal to 1", render_width=0)
        refused(
            env,
            "max_episode_steps=100001: should be less than or equal to 100000",
            max_episode_steps=100_001,
        )
        refused(env, "camera_id=-2: should be greater than or equal to -1", camera_id=-2)
        obs = env.reset(seed=0, render=True, render_height=48, render_width=64, camera_id=-1)
        assert obs.pixels_shape == [48, 64, 3]
        env.reset(seed=0, max_episode_steps=100_000)
        monkeypatch.setenv("DMCONTROL_RENDER_HEIGHT", "5000")  # the default is bounded too
        refused(env, "$DMCONTROL_RENDER_HEIGHT must be at most 640")
    finally:
        env.close()


def test_openspiel_bounds_game_parameters() -> None:
    env = environment("openspiel_env.server.environment", "OpenSpielEnvironment", "pyspiel")
    try:
        refused(
            env, "numbers from -32 to 32", game_name="breakthrough", game_params={"rows": 10**4}
        )
        refused(env, "longer than 64", game_name="tic_tac_toe", game_params={"x": "y" * 65})
        refused(
            env, "at most 12", game_name="tic_tac_toe", game_params={str(n): n for n in range(13)}
        )
        refused(env, "a number, a string", game_name="tic_tac_toe", game_params={"x": [1]})
        obs = env.reset(seed=0, game_name="breakthrough", game_params={"rows": 6, "columns": 6})
        assert obs.legal_actions
    finally:
        env.close()


def test_gymnasium_bounds_env_kwargs() -> None:
    env = environment("gymnasium_env.server.environment", "GymnasiumEnvironment", "gymnasium")
    try:
        refused(
            env, "numbers from", env_id="FrozenLake-v1", env_kwargs={"map_name": "4x4", "n": 1e9}
        )
        assert env.reset(seed=0, env_id="CartPole-v1").env_id == "CartPole-v1"
    finally:
        env.close()


def test_reasoning_gym_bounds_its_task_settings() -> None:
    env = environment(
        "reasoning_gym_env.server.environment", "ReasoningGymEnvironment", "reasoning_gym"
    )
    try:
        refused(env, "numbers from", task_name="leg_counting", task_config={"max_animals": 10**7})
        specs = [{"name": "leg_counting", "config": {"max_animals": 10**7}}]
        refused(env, "numbers from", task_specs=specs)
        refused(
            env,
            "dataset_size=1000000000: should be less than or equal to 100000",
            task_name="leg_counting",
            dataset_size=10**9,
        )
        refused(env, "difficulty=101: should be less than or equal to 100", difficulty=101)
        refused(
            env,
            "difficulty=-1: should be greater than or equal to 0 (a curriculum level",
            difficulty=-1,
        )
        obs = env.reset(seed=0, task_name="leg_counting", difficulty=100, dataset_size=100_000)
        assert obs.question
    finally:
        env.close()


def test_chess_bounds_search_depth_and_game_length() -> None:
    env = environment("chess_env.server.environment", "ChessEnvironment", "chess")
    refused(env, "opponent_depth=5: should be less than or equal to 4", opponent_depth=5)
    refused(env, "opponent_depth=0: should be greater than or equal to 1", opponent_depth=0)
    refused(env, "max_moves=100001: should be less than or equal to 100000", max_moves=100_001)
    refused(env, "gamma=0: should be greater than 0", gamma=0)
    refused(env, "gamma=1.5: should be less than or equal to 1", gamma=1.5)
    refused(env, "fen is not a valid FEN", fen="not a fen")  # still the env's own check
    obs = env.reset(seed=0, opponent_depth=4, max_moves=100_000, gamma=1.0, agent_color="white")
    assert obs.legal_moves and env.state.opponent_depth == 4


def test_connect4_bounds_the_search_depth() -> None:
    env = environment("connect4_env.server.environment", "Connect4Environment")
    refused(env, "depth=7: should be less than or equal to 6", opponent="search", depth=7)
    refused(env, "depth=0: should be greater than or equal to 1", opponent="search", depth=0)
    refused(env, "should be 'random', 'search' or 'human'", opponent="stockfish")
    assert env.reset(seed=0, opponent="search", depth=6).legal_actions == list(range(7))


def test_snake_bounds_the_board_the_view_and_the_episode() -> None:
    env = environment("snake_env.server.environment", "SnakeEnvironment")
    refused(env, "width=31: should be less than or equal to 30", width=31)
    refused(env, "height=4: should be greater than or equal to 5", height=4)
    refused(
        env,
        "view_radius=31: should be less than or equal to 30 (0: the whole board)",
        view_radius=31,
    )
    refused(env, "view_radius=-1: should be greater than or equal to 0", view_radius=-1)
    refused(env, "max_steps=100001: should be less than or equal to 100000", max_steps=100_001)
    obs = env.reset(seed=0, width=30, height=5, view_radius=30, max_steps=100_000)
    assert len(obs.grid) == 61 and len(obs.grid[0]) == 61


def test_wildfire_bounds_the_map_the_fire_and_the_budgets() -> None:
    env = environment("wildfire_env.server.environment", "WildfireEnvironment")
    refused(env, "width=65: should be less than or equal to 64", width=65)
    refused(env, "height=7: should be greater than or equal to 8", height=7)
    refused(env, "humidity=1.0: should be less than 1", humidity=1.0)
    refused(env, "head_start=21: should be less than or equal to 20", head_start=21)
    refused(env, "max_steps=100001: should be less than or equal to 100000", max_steps=100_001)
    refused(
        env, "water_capacity=100001: should be less than or equal to 100000", water_capacity=100_001
    )
    refused(env, "break_capacity=-1: should be greater than or equal to 0", break_capacity=-1)
    refused(env, "init_sources=0: should be greater than or equal to 1", init_sources=0)
    refused(env, "init_sources must be 1..16", width=8, height=8, init_sources=17)  # the env's
    obs = env.reset(
        seed=0,
        width=64,
        height=8,
        humidity=0.0,
        head_start=20,
        max_steps=100_000,
        water_capacity=100_000,
        break_capacity=0,
        init_sources=128,
    )
    assert (obs.width, obs.remaining_water, obs.remaining_breaks) == (64, 100_000, 0)


def test_2048_bounds_the_target_and_keeps_it_a_power_of_two() -> None:
    env = environment("game_2048_env.server.environment", "Game2048Environment")
    refused(env, "target=131072: should be less than or equal to 65536", target=131_072)
    refused(env, "target=-8: should be greater than or equal to 0", target=-8)
    refused(env, "power of two", target=100)  # the env's own check
    refused(env, "power of two", target=4)
    assert env.reset(seed=0, target=65_536).board
    assert env.reset(seed=0, target=0).board


def test_maze_bounds_the_episode_length() -> None:
    env = environment("maze_env.server.environment", "MazeEnvironment")
    refused(env, "max_steps=100001: should be less than or equal to 100000", max_steps=100_001)
    refused(env, "max_steps=0: should be greater than or equal to 1", max_steps=0)
    assert env.reset(seed=0, max_steps=100_000).legal_actions


def test_wordle_bounds_the_number_of_guesses() -> None:
    env = environment("wordle_env.server.environment", "WordleEnvironment")
    refused(env, "max_guesses=11: should be less than or equal to 10", max_guesses=11)
    refused(env, "max_guesses=0: should be greater than or equal to 1", max_guesses=0)
    assert env.reset(seed=0, max_guesses=10).remaining_guesses == 10
