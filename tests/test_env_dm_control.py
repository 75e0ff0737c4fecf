"""dm_control over the wire: camera frames rendered on the CPU, seeded physics, bounded actions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("dm_control", reason="the dm_control extra is not installed")

from dm_control_env import DMControlAction, DMControlEnv
from dm_control_env.server.environment import DMControlEnvironment
from dm_control_env.server.forms import action_model

from openenv.core import ClientError
from tests.conftest import env_fixtures

url, env = env_fixtures("dm_control_env.server.app:app", DMControlEnv)


def play(env, actions: list[list[float]], seed: int = 1, **options):
    first = env.reset(seed=seed, **options)
    return [first, *(env.step(DMControlAction(values=v)) for v in actions)]


def test_cartpole_frames_are_rendered_and_move_with_the_cart(env):
    results = play(env, [[1.0]] * 5, render=True)
    frames = [r.observation.pixels_array() for r in results]
    assert all(f.dtype == np.uint8 and f.shape == (240, 320, 3) for f in frames)
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))
    assert sorted(results[0].observation.observations) == ["position", "velocity"]
    assert all(0.0 <= r.reward <= 1.0 for r in results[1:])


def test_a_seed_replays_the_same_physics(env):
    actions = [[0.5], [-0.5], [1.0]]
    runs = [play(env, actions, seed=s) for s in (4, 4, 5)]
    observations = [[r.observation.observations for r in run] for run in runs]
    assert observations[0] == observations[1] != observations[2]
    assert all(r.observation.pixels is None for r in runs[0])  # frames only on request


def test_walker_is_chosen_at_reset_with_six_action_dimensions(env):
    results = play(
        env,
        [[0.0] * 6, [1.0, -1.0] * 3],
        domain_name="walker",
        task_name="walk",
        render=True,
        render_height=120,
        render_width=160,
    )
    assert results[-1].observation.pixels_array().shape == (120, 160, 3)
    state = env.state()
    assert (state.domain_name, state.task_name, state.step_count) == ("walker", "walk", 2)
    assert state.action_spec["shape"] == [6] and state.action_spec["minimum"] == [-1.0] * 6
    with pytest.raises(ClientError, match="needs 6 action values, got 1") as err:
        env.step(DMControlAction(values=[0.0]))
    assert err.value.server_code == "VALIDATION_ERROR"


def test_out_of_bounds_actions_are_refused_and_the_simulation_is_unchanged(env):
    env.reset(seed=1)
    with pytest.raises(ClientError, match="outside the bounds"):
        env.step(DMControlAction(values=[1.5]))
    assert env.state().step_count == 0


def test_a_step_limit_truncates_the_episode(env):
    results = play(env, [[0.0]] * 3, max_episode_steps=3)
    assert [r.done for r in results] == [False, False, False, True]
    assert results[-1].observation.metadata == {"terminated": False, "truncated": True}


def test_unknown_domain_and_task_list_what_exists(env):
    with pytest.raises(ClientError, match=r"use one of .*cartpole"):
        env.reset(domain_name="carpole")
    with pytest.raises(ClientError, match="balance, balance_sparse, swingup"):
        env.reset(domain_name="cartpole", task_name="walk")


def test_buttons_and_the_form_schema_come_from_the_action_spec():
    env = DMControlEnvironment()
    env.reset(seed=0)
    buttons = env.legal_actions()
    assert [(b.action, b.key) for b in buttons] == [
        ({"values": [-1.0]}, "ArrowLeft"),
        ({"values": [0.0]}, "ArrowDown"),
        ({"values": [1.0]}, "ArrowRight"),
    ]
    assert env.render().pixels.shape == (240, 320, 3)
    env.close()
    schema = action_model("cheetah", "run").model_json_schema()["properties"]["values"]
    assert schema["minItems"] == schema["maxItems"] == 6
    assert schema["prefixItems"][0] == {"type": "number", "minimum": -1.0, "maximum": 1.0}


def test_calls_from_different_threads_share_one_gl_context():
    """The server may run one session's calls on different worker threads (and a fast client
    makes that likely): the GL context must not care. It failed with "this context is already
    current on another thread" before the env drew on a thread of its own."""
    from concurrent.futures import ThreadPoolExecutor

    env = DMControlEnvironment()
    frames = []
    try:
        for i in range(3):
            with ThreadPoolExecutor(max_workers=1) as fresh:  # a new thread for every call
                if i == 0:
                    obs = fresh.submit(env.reset, seed=1, render=True, render_height=48).result()
                else:
                    obs = fresh.submit(env.step, DMControlAction(values=[1.0])).result()
                frames.append(obs.pixels_array())
        frames.append(env.render().pixels)  # and the playground's render, from this thread
        env.reset(seed=1, domain_name="walker", task_name="walk", render=True)  # new task
        assert env.render().pixels.shape == (240, 320, 3)
    finally:
        env.close()
    assert all(f.shape == (48, 320, 3) for f in frames[:3])
    assert not np.array_equal(frames[0], frames[2])  # the cart moved


def test_continuous_actions_are_sliders_named_after_the_actuators():
    env = DMControlEnvironment()
    env.reset(seed=0, domain_name="walker", task_name="walk")
    sliders = env.action_sliders()
    assert [s.label for s in sliders.sliders] == [
        "right_hip", "right_knee", "right_ankle", "left_hip", "left_knee", "left_ankle"
    ]  # fmt: skip
    assert {(s.low, s.high, s.value) for s in sliders.sliders} == {(-1.0, 1.0, 0.0)}
    before = env.state.step_count
    env.step(DMControlAction(**sliders.action_for([0.5, 0, 0, -0.5, 0, 0])))
    assert env.state.step_count == before + 1
    env.reset(seed=0, domain_name="cartpole", task_name="balance")
    assert [s.label for s in env.action_sliders().sliders] == ["slide"]
    env.close()
