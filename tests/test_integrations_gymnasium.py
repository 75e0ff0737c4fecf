"""A client as a gymnasium.Env: spaces from the schema, check_env on grid world, CartPole and
Atari, terminated vs truncated, seeding, reset options, chosen observation fields."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the sb3 (or gymnasium) extra is not installed")
pytest.importorskip("ale_py", reason="the atari extra is not installed")

import gymnasium as gym
from atari_env import AtariEnv
from grid_world_env import GridWorldEnv
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from gymnasium_env import GymnasiumEnv
from gymnasium_env.server.spaces import describe

from openenv.client import GenericEnvClient
from openenv.integrations import gym_spaces as gs
from openenv.integrations.gymnasium import GymEnv
from tests.conftest import api_app, served

UP, DOWN, LEFT, RIGHT = range(4)  # GridWorldAction's enum, in its order
# What check_env may say about a valid env: unbounded numbers (grid world's x and y, CartPole's
# velocities), and that an env made without gymnasium.make has no spec to remake it from.
EXPECTED_WARNINGS = ("infinity", "not having a spec")


@pytest.fixture(scope="module")
def grid() -> Iterator[str]:
    with served(api_app("grid_world_env.server.app:app")) as url:
        yield url


@pytest.fixture(scope="module")
def gymnasium_url() -> Iterator[str]:
    with served(api_app("gymnasium_env.server.app:app")) as url:
        yield url


@pytest.fixture(scope="module")
def atari() -> Iterator[str]:
    with served(api_app("atari_env.server.app:app")) as url:
        yield url


def cartpole(url: str, **kwargs) -> GymEnv:
    return GymEnv.from_url(url, GymnasiumEnv, reset_options={"env_id": "CartPole-v1"}, **kwargs)


def run(env: GymEnv, actions: list[int]) -> list[tuple]:
    return [env.step(a) for a in actions]


# -- check_env ---------------------------------------------------------------------------


CHECKED = {
    "grid_world": lambda urls: GymEnv.from_url(urls["grid"], GridWorldEnv),
    "grid_world generic": lambda urls: GymEnv.from_url(urls["grid"]),
    "CartPole": lambda urls: cartpole(urls["gymnasium_url"]),
    "FrozenLake generic": lambda urls: GymEnv.from_url(
        urls["gymnasium_url"], reset_options={"env_id": "FrozenLake-v1"}
    ),
    "Atari Pong": lambda urls: GymEnv.from_url(urls["atari"], AtariEnv, render_mode="rgb_array"),
    "Atari grayscale list": lambda urls: GymEnv.from_url(
        urls["atari"], reset_options={"obs_type": "grayscale", "frame_encoding": "list"}
    ),
}


@pytest.mark.parametrize("case", list(CHECKED))
def test_gymnasium_check_env_passes(case: str, request: pytest.FixtureRequest) -> None:
    urls = {name: request.getfixturevalue(name) for name in ("grid", "gymnasium_url", "atari")}
    env = CHECKED[case](urls)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env)
    finally:
        env.close()
    unexpected = [
        str(w.message) for w in caught if not any(s in str(w.message) for s in EXPECTED_WARNINGS)
    ]
    assert unexpected == []


# -- spaces --------------------------------------------------------------------------------


def test_grid_world_moves_are_discrete_and_its_position_a_box(grid: str) -> None:
    env = GymEnv.from_url(grid, GridWorldEnv)
    assert env.action_space == spaces.Discrete(4)
    assert env.observation_space == spaces.Box(-np.inf, np.inf, (2,), np.float32)
    obs, info = env.reset(seed=0)
    assert obs.tolist() == [0, 0] and info == {}
    obs, reward, terminated, truncated, _ = env.step(DOWN)
    assert (obs.tolist(), reward, terminated, truncated) == (
        [1, 0],
        pytest.approx(-0.1),
        False,
        False,
    )
    env.close()


def test_cartpole_has_the_spaces_gymnasium_gives_it(gymnasium_url: str) -> None:
    env = cartpole(gymnasium_url)
    native = gym.make("CartPole-v1")
    assert env.observation_space == native.observation_space
    assert env.action_space == native.action_space
    env.close()


def test_atari_observation_is_the_screen_the_bare_client_decodes(atari: str) -> None:
    env = GymEnv.from_url(atari, AtariEnv, render_mode="rgb_array")
    assert env.observation_space == spaces.Box(0, 255, (210, 160, 3), np.uint8)
    assert env.action_space == spaces.Discrete(6)  # Pong's minimal action set
    obs, _ = env.reset(seed=3)
    obs, *_ = env.step(2)
    with AtariEnv(atari).sync() as bare:
        bare.reset(seed=3)
        screen = bare.step({"action_id": 2}).observation.screen_array()
    np.testing.assert_array_equal(obs, screen)
    np.testing.assert_array_equal(env.render(), screen)
    env.close()


def test_chosen_observation_fields_make_a_box_or_a_dict(grid: str, atari: str) -> None:
    column = GymEnv.from_url(grid, GridWorldEnv, observation="y")
    assert column.observation_space.shape == (1,)
    column.close()
    screen_and_lives = GymEnv.from_url(atari, AtariEnv, observation=["screen", "lives"])
    assert isinstance(screen_and_lives.observation_space, spaces.Dict)
    obs, _ = screen_and_lives.reset(seed=0)
    assert obs["screen"].shape == (210, 160, 3) and obs["lives"].tolist() == [0]
    assert obs in screen_and_lives.observation_space
    screen_and_lives.close()


def test_a_field_that_cannot_be_a_space_is_refused_with_the_choices(grid: str) -> None:
    with pytest.raises(gs.NoSpace, match=r"no field.*x, y, message"):
        GymEnv.from_url(grid, GridWorldEnv, observation="position")
    with pytest.raises(gs.NoSpace, match="'message' is not numeric"):
        GymEnv.from_url(grid, GridWorldEnv, observation=["x", "message"])


def test_info_carries_the_fields_asked_for(grid: str) -> None:
    env = GymEnv.from_url(grid, GridWorldEnv, info_fields=["message"])
    _, info = env.reset(seed=0)
    assert "Welcome" in info["message"]
    env.close()


# -- the episode ---------------------------------------------------------------------------


def test_reaching_the_goal_terminates(grid: str) -> None:
    env = GymEnv.from_url(grid, GridWorldEnv, max_episode_steps=50)
    env.reset(seed=0)
    *_, (obs, reward, terminated, truncated, _) = run(env, [RIGHT] * 4 + [DOWN] * 4)
    assert (obs.tolist(), reward, terminated, truncated) == ([4, 4], 1.0, True, False)
    env.close()


def test_max_episode_steps_truncates_on_the_client_side(grid: str) -> None:
    env = GymEnv.from_url(grid, GridWorldEnv, max_episode_steps=3)
    env.reset(seed=0)
    assert [(t, u) for _, _, t, u, _ in run(env, [UP] * 3)] == [(False, False)] * 2 + [
        (False, True)
    ]
    env.reset()
    assert run(env, [UP])[0][3] is False  # a new episode counts from zero
    env.close()


def test_a_truncation_the_server_reports_is_truncated_and_reset_options_reach_it(
    gymnasium_url: str,
) -> None:
    env = cartpole(gymnasium_url)
    env.reset(seed=0, options={"max_episode_steps": 2})
    assert [(t, u) for _, _, t, u, _ in run(env, [0, 1])] == [(False, False), (False, True)]
    env.close()


def test_seeded_resets_replay_the_episodes_that_follow(gymnasium_url: str) -> None:
    env = cartpole(gymnasium_url)
    first = [env.reset(seed=7)[0], env.reset()[0], env.reset()[0]]
    again = [env.reset(seed=7)[0], env.reset()[0], env.reset()[0]]
    other = env.reset(seed=8)[0]
    env.close()
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], first[1]) and not np.array_equal(first[0], other)


def test_an_async_or_a_blocking_client_is_wrapped_and_closed_once(grid: str) -> None:
    for client in (GridWorldEnv(base_url=grid), GenericEnvClient(grid).sync()):
        env = GymEnv(client)
        env.reset(seed=0)
        assert env.step(RIGHT)[0].tolist() == [0, 1]
        env.close()
        env.close()


# -- the rules, without a server -----------------------------------------------------------


def test_bounded_numbers_and_integers_become_box_and_discrete() -> None:
    schema = {
        "properties": {
            "power": {"type": "number", "minimum": -1, "maximum": 1},
            "angle": {"type": "number", "minimum": 0, "maximum": 3.5},
            "gear": {"type": "integer", "minimum": 1, "maximum": 3},
        },
        "required": ["power", "angle"],
    }
    both = gs.action_codec(schema, {}, {})
    low, high = np.array([-1, 0], np.float32), np.array([1, 3.5], np.float32)
    assert both.space == spaces.Box(low, high, dtype=np.float32)
    assert both.encode(np.array([0.5, 2.0])) == {"power": 0.5, "angle": 2.0}
    gear = gs.action_codec(schema, {}, {}, names=["gear"])
    assert gear.space == spaces.Discrete(3)
    assert [gear.encode(i) for i in range(3)] == [{"gear": 1}, {"gear": 2}, {"gear": 3}]
    with pytest.raises(ValueError, match="outside Discrete"):
        gear.encode(3)


def test_an_unbounded_number_action_says_what_to_declare() -> None:
    schema = {"properties": {"force": {"type": "number"}}, "required": ["force"]}
    with pytest.raises(gs.NoSpace, match=r"Field\(ge=..., le=...\)"):
        gs.action_codec(schema, {}, {})


@pytest.mark.parametrize(
    "space",
    [
        spaces.Discrete(5, start=2),
        spaces.Box(-1.0, np.array([1.0, np.inf], np.float32), dtype=np.float32),
        spaces.Box(np.zeros((2, 2), np.float32), np.arange(1, 5, dtype=np.float32).reshape(2, 2)),
        spaces.Box(0, 255, (4, 4, 3), np.uint8),
        spaces.MultiDiscrete([3, 4]),
        spaces.MultiBinary(3),
        spaces.Tuple([spaces.Discrete(2), spaces.Discrete(3)]),
        spaces.Dict({"a": spaces.Discrete(2), "b": spaces.Box(0.0, 1.0, (2,))}),
    ],
)
def test_the_gymnasium_servers_space_descriptions_read_back_as_the_spaces(space) -> None:
    assert gs.space_from_description(describe(space)) == space
