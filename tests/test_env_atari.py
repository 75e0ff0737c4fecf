"""Atari over the wire: seeded Pong frames, Breakout's game over, encodings, config, refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("ale_py", reason="the atari extra is not installed")

from atari_env import AtariAction, AtariEnv
from atari_env.server.environment import AtariEnvironment

from openenv.core import ClientError, InvalidAction
from tests.conftest import env_fixtures

PONG_ACTIONS = ["NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE"]


url, env = env_fixtures("atari_env.server.app:app", AtariEnv)


def play(env, seed: int, actions: list[int], **options):
    first = env.reset(seed=seed, **options)
    return [first, *(env.step(AtariAction(action_id=a)) for a in actions)]


def test_pong_frames_are_rgb_uint8_and_move_between_steps(env):
    results = play(env, 7, [2] * 40)
    first = results[0].observation
    assert first.screen_shape == [210, 160, 3]
    assert first.legal_actions == list(range(6)) and first.action_meanings == PONG_ACTIONS
    frames = [r.observation.screen_array() for r in results]
    assert all(f.dtype == np.uint8 and f.shape == (210, 160, 3) for f in frames)
    changed = sum(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))
    assert changed >= 30  # the paddle and the ball move almost every step
    assert [r.observation.episode_frame_number for r in results[:3]] == [0, 4, 8]
    assert all(r.reward == 0.0 and not r.done for r in results[1:])


def test_a_seed_replays_the_same_episode_even_with_sticky_actions(env):
    actions = [1, 2, 3, 2, 4, 5] * 8
    a = play(env, 3, actions, repeat_action_probability=0.25)
    b = play(env, 3, actions, repeat_action_probability=0.25)
    c = play(env, 4, actions, repeat_action_probability=0.25)
    screens = [[r.observation.screen.data for r in run] for run in (a, b, c)]
    assert screens[0] == screens[1]
    assert screens[0] != screens[2]


@pytest.mark.parametrize("obs_type", ["rgb", "grayscale"])
def test_a_new_episode_starts_exactly_like_a_fresh_emulator_screen_included(obs_type):
    actions = [AtariAction(action_id=a) for a in [1, 2, 3, 4, 5, 2] * 5]

    def episode(env: AtariEnvironment) -> list[tuple]:
        observations = [env.reset(seed=0, obs_type=obs_type)]
        observations += [env.step(a) for a in actions]
        return [(o.screen_array().tobytes(), o.frame_number, o.reward) for o in observations]

    used, fresh = AtariEnvironment(), AtariEnvironment()
    first = episode(used)
    again = episode(used)  # restores the saved start: the screen must not be the last one
    assert again == first == episode(fresh)
    used.reset(seed=0)
    assert np.array_equal(used.render().pixels, fresh.reset(seed=0).screen_array())
    used.close()
    fresh.close()


def test_breakout_ends_at_game_over_after_losing_every_life(env):
    result = env.reset(seed=0, game_name="breakout")
    assert result.observation.lives == 5
    assert result.observation.action_meanings == ["NOOP", "FIRE", "RIGHT", "LEFT"]
    lives, steps = [], 0
    while not result.done:
        result = env.step(AtariAction(action_id=1 if steps % 30 == 0 else 0))  # serve, then idle
        lives.append(result.observation.lives)
        steps += 1
        assert steps < 3000, "breakout did not end"
    assert result.observation.metadata == {"terminated": True, "truncated": False}
    assert lives[-1] == 0 and sorted(set(lives), reverse=True) == [5, 4, 3, 2, 1, 0]
    with pytest.raises(ClientError, match="reset") as err:
        env.step(AtariAction(action_id=0))
    assert err.value.server_code == "SESSION_ERROR"


def test_a_step_limit_truncates_the_episode(env):
    env.reset(seed=1, max_episode_steps=3)
    results = [env.step(AtariAction(action_id=0)) for _ in range(3)]
    assert [r.done for r in results] == [False, False, True]
    assert results[-1].observation.metadata == {"terminated": False, "truncated": True}


@pytest.mark.parametrize(
    ("options", "shape"),
    [
        ({"obs_type": "grayscale"}, [210, 160]),
        ({"obs_type": "ram"}, [128]),
        ({"frame_encoding": "png"}, [210, 160, 3]),
        ({"frame_encoding": "raw"}, [210, 160, 3]),
    ],
)
def test_observation_types_and_encodings_give_the_documented_shapes(env, options, shape):
    result = env.reset(seed=2, **options)
    assert result.observation.screen_shape == shape
    assert list(result.observation.screen_array().shape) == shape


def test_the_flat_list_the_reference_client_reads_is_available_on_request(env):
    default_screen = env.reset(seed=5).observation.screen_array()
    obs = env.reset(seed=5, frame_encoding="list").observation
    assert isinstance(obs.screen, list) and len(obs.screen) == 210 * 160 * 3
    assert np.array_equal(np.array(obs.screen).reshape(obs.screen_shape), default_screen)


def test_the_default_encoding_sends_distinct_rows_and_every_encoding_agrees(env):
    obs = play(env, 3, [2] * 30)[-1].observation
    assert obs.screen.encoding == "rows" and sum(obs.screen.repeats) == 210
    assert len(obs.screen.repeats) < 60  # Pong's screen is mostly runs of equal rows
    for encoding in ("zlib", "png", "raw"):
        again = play(env, 3, [2] * 30, frame_encoding=encoding)[-1].observation
        assert again.screen.encoding == encoding
        assert np.array_equal(again.screen_array(), obs.screen_array())


@pytest.mark.parametrize(
    ("game", "obs_type"), [("pong", "rgb"), ("ms_pacman", "rgb"), ("breakout", "grayscale")]
)
def test_the_screen_sent_is_exactly_the_image_ale_draws(game, obs_type):
    """The default encoding is made from ALE's palette indices: it must give ALE's image."""
    env = AtariEnvironment()
    options = {"game_name": game, "obs_type": obs_type}
    obs = env.reset(seed=4, **options)
    draw = env._ale.getScreenRGB if obs_type == "rgb" else env._ale.getScreenGrayscale
    for step in range(150):
        obs = env.step(AtariAction(action_id=step * 7 % len(obs.legal_actions)))
        assert obs.screen.encoding == "rows"
        assert np.array_equal(obs.screen_array(), draw()), f"{game} step {step}"
        if obs.done:
            obs = env.reset(**options)
    env.close()


def test_an_action_outside_the_set_is_refused_and_the_game_is_unchanged(env):
    env.reset(seed=1)
    before = env.step(AtariAction(action_id=0)).observation
    with pytest.raises(ClientError, match="0=NOOP, 1=FIRE") as err:
        env.step(AtariAction(action_id=6))
    assert err.value.server_code == "VALIDATION_ERROR"
    after = env.step(AtariAction(action_id=0)).observation
    assert after.episode_frame_number == before.episode_frame_number + 4


def test_reference_client_fields_are_accepted_when_they_match_the_episode(env):
    env.reset(seed=1)
    ok = env.step(
        {"action_id": 2, "game_name": "pong", "obs_type": "rgb", "full_action_space": False}
    )
    assert ok.observation.episode_frame_number == 4
    with pytest.raises(ClientError, match="pass game_name to reset"):
        env.step({"action_id": 2, "game_name": "breakout"})


def test_unknown_game_and_bad_options_say_what_to_use(env):
    with pytest.raises(ClientError, match=r"unknown Atari game 'pongg'.*pong"):
        env.reset(game_name="pongg")
    with pytest.raises(ClientError, match="should be 'rgb', 'grayscale' or 'ram'"):
        env.reset(obs_type="hsv")
    with pytest.raises(ClientError, match=r"mode 9 does not exist in pong; available: \[0, 1\]"):
        env.reset(mode=9)


def test_environment_variables_configure_the_game_and_options_override_them(monkeypatch):
    monkeypatch.setenv("ATARI_GAME", "breakout")
    monkeypatch.setenv("ATARI_FRAMESKIP", "2")
    env = AtariEnvironment()
    assert env.reset(seed=0).action_meanings == ["NOOP", "FIRE", "RIGHT", "LEFT"]
    assert env.step(AtariAction(action_id=0)).episode_frame_number == 2
    assert (env.state.game_name, env.state.frameskip, env.state.obs_type) == ("breakout", 2, "rgb")
    assert env.reset(seed=0, game_name="pong").action_meanings == PONG_ACTIONS
    monkeypatch.setenv("ATARI_FRAMESKIP", "zero")
    with pytest.raises(InvalidAction, match=r"\$ATARI_FRAMESKIP='zero' is invalid"):
        env.reset(seed=0)
    env.close()


def test_one_labelled_button_per_action_with_keys():
    env = AtariEnvironment()
    env.reset(seed=0, full_action_space=True)
    buttons = env.legal_actions()
    assert len(buttons) == 18
    by_label = {b.label: b for b in buttons}
    assert by_label["FIRE"].key == " " and by_label["UP"].key == "ArrowUp"
    assert by_label["DOWNLEFTFIRE"].action == {"action_id": 17}
    assert len({b.key for b in buttons}) == 18
    assert env.render().pixels.shape == (210, 160, 3)
    env.reset(seed=0)
    pong = {b.label: b.key for b in env.legal_actions()}
    assert (pong["RIGHT"], pong["LEFT"], pong["FIRE"]) == ("ArrowUp", "ArrowDown", " ")
    env.close()


def test_frameskip_and_step_limit_below_one_are_refused_with_the_default_to_use():
    env = AtariEnvironment()
    with pytest.raises(
        InvalidAction, match=r"frameskip=0: .* greater than or equal to 1 .*default is 4"
    ):
        env.reset(seed=0, frameskip=0)
    with pytest.raises(
        InvalidAction, match=r"max_episode_steps=0: .* greater than or equal to 1 .*leave it out"
    ):
        env.reset(seed=0, max_episode_steps=0)
    env.reset(seed=0, mode=0, difficulty=0, frameskip=1)  # mode 0 and difficulty 0 exist
    assert (env.state.mode, env.state.difficulty, env.state.frameskip) == (0, 0, 1)
    assert env.step(AtariAction(action_id=0)).episode_frame_number == 1
    env.close()


@pytest.mark.parametrize("game", ["combat", "joust", "maze_craze", "warlords"])
def test_roms_ale_ships_without_an_implementation_are_refused_not_fatal(game):
    env = AtariEnvironment()
    with pytest.raises(InvalidAction, match=rf"'{game}' ships with ale-py but ALE cannot play"):
        env.reset(seed=0, game_name=game)
    assert env.reset(seed=0, game_name="pong").action_meanings == PONG_ACTIONS  # still alive
    env.close()


def test_the_combat_refusal_reaches_a_client_and_the_server_keeps_serving(env):
    with pytest.raises(ClientError, match="ALE cannot play it") as err:
        env.reset(game_name="combat")
    assert err.value.server_code == "VALIDATION_ERROR"
    assert env.reset(seed=0).observation.action_meanings == PONG_ACTIONS


def test_the_pong_oracle_wins_the_first_points_and_its_search_leaves_the_game_untouched():
    from atari_env.server.oracle import ORACLE

    local = AtariEnvironment()
    obs = local.reset(seed=0, **ORACLE.reset_options)
    ale = local._ale
    before = (ale.getFrameNumber(), ale.getEpisodeFrameNumber(), ale.getRAM().copy())
    first = ORACLE.act(local, obs)  # plans the first point on a copy of the emulator
    assert first is not None and 0 <= first["action_id"] < 6
    assert (ale.getFrameNumber(), ale.getEpisodeFrameNumber()) == before[:2]
    assert np.array_equal(ale.getRAM(), before[2])
    points = []
    action = first
    while len(points) < 3:
        obs = local.step(AtariAction(**action))
        if obs.reward:
            points.append(obs.reward)
        action = ORACLE.act(local, obs)
    assert points == [1.0, 1.0, 1.0] and not obs.done
    local.close()


def test_the_oracle_declares_pong_only_and_claims_no_score_for_another_game():
    from atari_env.server.oracle import ORACLE, SOLVED

    assert SOLVED == ("pong",) and ORACLE.reset_options["game_name"] == "pong"
    assert "Pong" in ORACLE.scope and "no declared score range" in ORACLE.scope
    local = AtariEnvironment()
    obs = local.reset(seed=0, **{**ORACLE.reset_options, "game_name": "breakout"})
    with pytest.raises(ValueError, match="solves pong only, not 'breakout'"):
        ORACLE.act(local, obs)
    local.close()
