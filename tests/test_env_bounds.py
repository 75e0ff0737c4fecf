"""Reset options cannot make one episode cost a public server more than a bound: each env refuses
an option past its bound with an InvalidAction that names the bound, and the env still works."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from openenv.core import InvalidAction
from openenv.core.bounds import MAX_SETTINGS_BYTES, check_settings


def environment(module: str, cls: str, extra: str) -> Any:
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


def test_dm_control_bounds_the_frame_it_renders() -> None:
    env = environment("dm_control_env.server.environment", "DMControlEnvironment", "dm_control")
    try:
        refused(env, "render_height must be at most 640", render_height=5000)
        refused(env, "render_width must be at most 640", render_width=641)
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
        refused(env, "dataset_size must be", task_name="leg_counting", dataset_size=10**9)
    finally:
        env.close()
