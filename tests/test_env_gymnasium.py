"""Any Gymnasium env over the wire: frames, labelled buttons, Box actions, done vs truncated."""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the gymnasium extra is not installed")

from gymnasium_env import GymnasiumAction, GymnasiumEnv
from gymnasium_env.server.environment import GymnasiumEnvironment
from gymnasium_env.server.forms import action_model

from openenv.core import ClientError
from tests.conftest import env_fixtures

HAS_MINIGRID = importlib.util.find_spec("minigrid") is not None
minigrid = pytest.mark.skipif(not HAS_MINIGRID, reason="minigrid is not installed")

# env id -> (frame shape, actions to play, labels of the buttons)
CATALOG = {
    "CartPole-v1": ((400, 600, 3), [1, 0, 1, 0], ["← Push left", "Push right →"]),
    "MountainCar-v0": (
        (400, 600, 3),
        [2, 2, 2, 0],
        ["← Accelerate left", "Coast", "Accelerate right →"],
    ),
    "Acrobot-v1": ((500, 500, 3), [2, 2, 0, 0], ["↺ Torque -1", "No torque", "↻ Torque +1"]),
    "FrozenLake-v1": ((256, 256, 3), [2, 1, 2, 1], ["← Left", "↓ Down", "→ Right", "↑ Up"]),
    "Taxi-v4": (
        (456, 536, 3),
        [0, 1, 2, 3, 0, 1],
        ["↓ South", "↑ North", "→ East", "← West", "Pick up", "Drop off"],
    ),
    "CliffWalking-v1": ((256, 768, 3), [0, 1, 1, 2], ["↑ Up", "→ Right", "↓ Down", "← Left"]),
    "Blackjack-v1": ((376, 384, 3), [1], ["Stick", "Hit"]),
}
MINIGRID = ("MiniGrid-Empty-5x5-v0", (160, 160, 3), [1, 2, 2, 0])


url, env = env_fixtures("gymnasium_env.server.app:app", GymnasiumEnv)


def play(env, env_id: str, actions: list, seed: int = 3, **options):
    results = [env.reset(seed=seed, env_id=env_id, render=True, **options)]
    for action in actions:
        if results[-1].done:
            break
        results.append(env.step(GymnasiumAction(action=action)))
    return results


def frames_of(results) -> list[np.ndarray]:
    return [r.observation.frame_array() for r in results]


@pytest.mark.parametrize("env_id", sorted(CATALOG))
def test_a_seeded_episode_draws_frames_that_change(env, env_id):
    shape, actions, _ = CATALOG[env_id]
    results = play(env, env_id, actions)
    frames = frames_of(results)
    assert all(f.dtype == np.uint8 and f.shape == shape for f in frames)
    assert any(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))
    assert all(isinstance(r.reward, float) for r in results[1:])
    again = play(env, env_id, actions)
    assert [r.observation.observation for r in again] == [
        r.observation.observation for r in results
    ]


@minigrid
def test_minigrid_ids_work_when_minigrid_is_installed(env):
    env_id, shape, actions = MINIGRID
    results = play(env, env_id, actions)
    obs = results[0].observation.observation
    assert obs["mission"] == "get to the green goal square"
    assert np.array(obs["image"]).shape == (7, 7, 3)
    frames = frames_of(results)
    assert frames[0].shape == shape
    assert any(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))


def test_cartpole_falls_and_terminates(env):
    env.reset(seed=3, env_id="CartPole-v1")
    result, steps = None, 0
    while result is None or not result.done:
        result = env.step(GymnasiumAction(action=0))
        steps += 1
    assert steps < 30 and result.reward == 1.0
    assert result.observation.metadata == {"terminated": True, "truncated": False}
    with pytest.raises(ClientError) as err:
        env.step(GymnasiumAction(action=0))
    assert err.value.server_code == "SESSION_ERROR"


def test_a_step_limit_truncates_and_the_distinction_is_kept(env):
    results = play(env, "MountainCar-v0", [1, 1, 1], max_episode_steps=3)
    assert [r.done for r in results[1:]] == [False, False, True]
    assert results[-1].observation.metadata == {"terminated": False, "truncated": True}


def test_a_zero_step_limit_from_a_blank_form_means_the_registered_limit(env):
    env.reset(seed=0, env_id="CartPole-v1", max_episode_steps=0)
    assert env.state().max_episode_steps == 500


def test_frames_travel_only_on_request(env):
    assert env.reset(seed=0, env_id="CartPole-v1").observation.frame is None
    obs = env.reset(seed=0, env_id="CartPole-v1", render=True, frame_encoding="png").observation
    assert obs.frame.encoding == "png" and obs.frame_array().shape == (400, 600, 3)


def test_frozen_lake_pays_one_at_the_goal(env):
    path = [2, 2, 1, 1, 1, 2]
    results = play(env, "FrozenLake-v1", path, env_kwargs={"is_slippery": False})
    assert [r.observation.observation for r in results] == [0, 1, 2, 6, 10, 14, 15]
    assert results[-1].reward == 1.0 and results[-1].done


def test_cliff_walking_costs_a_hundred_for_a_step_off_the_cliff(env):
    results = play(env, "CliffWalking-v1", [1])
    assert results[-1].reward == -100.0 and results[-1].observation.observation == 36


def test_blackjack_stick_ends_the_hand_with_a_win_loss_or_draw(env):
    results = play(env, "Blackjack-v1", [0])
    player_sum, dealer_card, usable_ace = results[0].observation.observation
    assert 4 <= player_sum <= 21 and 1 <= dealer_card <= 10 and usable_ace in (0, 1)
    assert results[-1].done and results[-1].reward in (-1.0, 0.0, 1.0)


def test_ansi_text_is_drawn_without_colour_codes(env):
    obs = env.reset(seed=0, env_id="FrozenLake-v1", render_mode="ansi").observation
    assert obs.frame is None
    assert obs.text.split() == ["SFFF", "FHFH", "FFFH", "HFFG"]


def test_box_actions_within_bounds_are_applied_and_others_refused(env):
    results = play(env, "Pendulum-v1", [[1.5], 2.0, [-2.0]])
    assert all(r.reward <= 0 for r in results[1:])
    with pytest.raises(ClientError, match="outside the action space") as err:
        env.step(GymnasiumAction(action=[3.0]))
    assert err.value.server_code == "VALIDATION_ERROR"
    with pytest.raises(ClientError, match="does not fit"):
        env.step(GymnasiumAction(action=[1.0, 1.0]))
    assert env.state().step_count == 3


def test_a_discrete_action_outside_the_space_is_refused(env):
    env.reset(seed=0, env_id="CartPole-v1")
    with pytest.raises(ClientError, match="outside the action space"):
        env.step(GymnasiumAction(action=2))
    with pytest.raises(ClientError, match="not an integer"):
        env.step(GymnasiumAction(action=0.5))
    assert env.state().step_count == 0


def test_unknown_and_retired_ids_say_what_to_use(env):
    with pytest.raises(ClientError, match="doesn't exist"):
        env.reset(env_id="CartPool-v1")
    with pytest.raises(ClientError, match="Taxi-v4"):
        env.reset(env_id="Taxi-v3")


def test_state_describes_the_spaces(env):
    env.reset(seed=0, env_id="MountainCarContinuous-v0")
    state = env.state()
    assert state.action_space == {
        "type": "Box",
        "shape": [1],
        "dtype": "float32",
        "low": [-1.0],
        "high": [1.0],
    }
    assert state.max_episode_steps == 999 and state.render_mode == "rgb_array"


@pytest.mark.parametrize("env_id", sorted(CATALOG))
def test_discrete_actions_become_labelled_buttons(env_id):
    env = GymnasiumEnvironment()
    env.reset(seed=0, env_id=env_id)
    buttons = env.legal_actions()
    assert [b.label for b in buttons] == CATALOG[env_id][2]
    assert [b.action for b in buttons] == [{"action": i} for i in range(len(buttons))]
    env.close()


@minigrid
def test_minigrid_buttons_use_its_action_names():
    env = GymnasiumEnvironment()
    env.reset(seed=0, env_id=MINIGRID[0])
    buttons = {b.label: b.key for b in env.legal_actions()}
    assert buttons["Forward"] == "ArrowUp" and "Toggle" in buttons and len(buttons) == 7
    env.close()


def test_multi_binary_and_multi_discrete_actions_are_enumerated_as_buttons():
    from gymnasium import spaces
    from gymnasium_env.server.spaces import enumerate_actions, from_json

    assert enumerate_actions(spaces.MultiBinary(2)) == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert len(enumerate_actions(spaces.MultiDiscrete([3, 2]))) == 6
    assert enumerate_actions(spaces.MultiBinary(8)) is None  # 256 buttons: use the form
    assert from_json(spaces.MultiDiscrete([3, 2]), [2, 1]).tolist() == [2, 1]


def test_the_action_schema_gives_the_form_its_bounds():
    cartpole = action_model("CartPole-v1").model_json_schema()["properties"]["action"]
    assert (cartpole["type"], cartpole["minimum"], cartpole["maximum"]) == ("integer", 0, 1)
    pendulum = action_model("Pendulum-v1").model_json_schema()["properties"]["action"]
    assert (pendulum["type"], pendulum["minimum"], pendulum["maximum"]) == ("number", -2.0, 2.0)


def test_box_actions_get_one_slider_per_number_sized_from_the_space():
    from gymnasium import spaces
    from gymnasium_env.server.spaces import sliders

    env = GymnasiumEnvironment()
    env.reset(seed=0, env_id="Pendulum-v1")
    pendulum = env.action_sliders()
    assert [(s.label, s.low, s.high, s.value) for s in pendulum.sliders] == [
        ("torque", -2.0, 2.0, 0.0)
    ]
    obs = env.step(GymnasiumAction(**pendulum.action_for([1.5])))
    assert obs.metadata["truncated"] is False
    env.reset(seed=0, env_id="MountainCarContinuous-v0")
    assert [s.label for s in env.action_sliders().sliders] == ["force"]
    env.reset(seed=0, env_id="CartPole-v1")
    assert env.action_sliders() is None  # buttons instead
    env.close()
    grid = sliders(spaces.Box(0, 1, shape=(2, 2)), ["a", "b", "c", "d"])
    assert len(grid.sliders) == 4 and not grid.scalar
    assert sliders(spaces.Box(-np.inf, 1, shape=(2,)), ["a", "b"]) is None  # no bounds to slide
    assert sliders(spaces.Box(0, 1, shape=(65,)), ["x"] * 65) is None  # too many: the form
    assert sliders(spaces.Box(0, 5, shape=(), dtype=np.int64), ["n"]).sliders[0].step == 1
    assert sliders(spaces.Box(0, 5, shape=()), ["n"]).scalar
