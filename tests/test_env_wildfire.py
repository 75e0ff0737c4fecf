"""Wildfire over the wire: containment wins, budgets, refused actions, frames, seeds."""

from __future__ import annotations

import pytest
from wildfire_env import WildfireAction, WildfireEnv

from openenv.core import ClientError
from openenv.testing import check_env
from tests.conftest import env_fixtures

ASH, FUEL, BURNING, BREAK, DAMP = range(5)


url, env = env_fixtures("wildfire_env.server.app:app", WildfireEnv)


def burning_cells(obs) -> list[tuple[int, int]]:
    """(x, y) of every burning cell."""
    return [(i % obs.width, i // obs.width) for i, code in enumerate(obs.grid) if code == BURNING]


def test_water_on_every_fire_puts_it_out_and_ends_with_the_land_saved(env):
    obs = env.reset(seed=3, init_sources=1, head_start=0, water_capacity=5).observation
    assert obs.burning_count == 1 and obs.step == 0 and len(obs.grid) == 16 * 16
    ((x, y),) = burning_cells(obs)
    result = env.step(WildfireAction(action="water", x=x, y=y))
    obs = result.observation
    assert result.done and obs.burning_count == 0 and "fire is out" in obs.message
    assert obs.remaining_water == 4
    assert obs.grid[y * obs.width + x] == DAMP
    # +0.1 for the fire put out, -0.01 time, + share of land saved, +0.5 for containment
    assert result.reward == pytest.approx(0.1 - 0.01 + obs.saved_ratio + 0.5, abs=1e-3)
    assert obs.saved_ratio > 0.95
    state = env.state()
    assert state.total_extinguished == 1 and state.step_count == 1


def test_waiting_lets_the_fire_spread_and_costs_reward(env):
    obs = env.reset(seed=3, init_sources=1, head_start=0, wind="E", humidity=0.0).observation
    total, rewards = obs.burning_count, []
    while not obs.done:
        result = env.step(WildfireAction(action="wait"))
        obs = result.observation
        rewards.append(result.reward)
        total = max(total, obs.burning_count + obs.burned_count)
    assert total > 5 and obs.burned_count > 5
    assert sum(rewards[:-1]) < 0  # spread penalties before the end-of-episode bonus


def test_a_firebreak_blocks_the_fire(env):
    obs = env.reset(seed=4, init_sources=1, head_start=0, humidity=0.0).observation
    ((x, y),) = burning_cells(obs)
    tx, ty = (x + 1, y) if x + 1 < obs.width else (x - 1, y)
    obs = env.step(WildfireAction(action="break", x=tx, y=ty)).observation
    assert obs.grid[ty * obs.width + tx] == BREAK and obs.remaining_breaks == 29
    while not obs.done:
        obs = env.step(WildfireAction(action="wait")).observation
    assert obs.grid[ty * obs.width + tx] == BREAK  # never burnt


def test_illegal_actions_are_refused_and_change_nothing(env):
    env.reset(seed=5, water_capacity=0)
    env.step(WildfireAction(action="wait"))
    untouched = env.step(WildfireAction(action="wait")).observation  # the run without refusals

    env.reset(seed=5, water_capacity=0)
    env.step(WildfireAction(action="wait"))
    snapshot = env.state()
    cases = [
        (WildfireAction(action="water", x=1, y=1), "no water left"),
        (WildfireAction(action="break", x=99, y=0), "off the map"),
        (WildfireAction(action="break"), "needs target coordinates"),
    ]
    for action, reason in cases:
        with pytest.raises(ClientError) as err:
            env.step(action)
        assert err.value.server_code == "VALIDATION_ERROR" and reason in str(err.value)
    assert env.state() == snapshot
    after = env.step(WildfireAction(action="wait")).observation
    assert after == untouched  # same grid, same budget: the refusals left no trace


def test_a_firebreak_on_a_burning_cell_is_refused(env):
    obs = env.reset(seed=6).observation
    x, y = burning_cells(obs)[0]
    with pytest.raises(ClientError, match="needs vegetation"):
        env.step(WildfireAction(action="break", x=x, y=y))


def test_the_end_policy_stops_the_episode_with_a_penalty(env):
    obs = env.reset(seed=5, water_capacity=0, illegal_move="end").observation
    result = env.step(WildfireAction(action="water", x=0, y=0))
    assert result.done and result.reward == pytest.approx(-1.0)
    assert result.observation.grid == obs.grid
    assert "no water left" in result.observation.metadata["illegal_move"]


def test_the_same_seed_gives_the_same_fire(env):
    def episode() -> list[list[int]]:
        obs = env.reset(seed=21, wind=None).observation
        grids = [obs.grid]
        for _ in range(8):
            obs = env.step(WildfireAction(action="wait")).observation
            grids.append(obs.grid)
            if obs.done:
                break
        return grids

    first = episode()
    assert first == episode()
    assert env.reset(seed=22).observation.grid != first[0]


def test_frames_show_the_fire_and_change_as_it_spreads():
    from wildfire_env.server.environment import WildfireEnvironment

    env = WildfireEnvironment()
    env.reset(seed=8, width=16, height=16, humidity=0.0)
    before = env.render().pixels
    assert before.shape == (16 * 24, 16 * 24, 3)  # 24 px a cell on a 16x16 map
    red = (before[..., 0] > 190) & (before[..., 1] < 210) & (before[..., 2] < 60)
    assert red.any()  # flames are painted
    labels = [c.label for c in env.legal_actions()]
    assert labels[0] == "⏳ Wait" and any(label.startswith("💧 Water") for label in labels)
    env.step(WildfireAction(action="wait"))
    assert (env.render().pixels != before).any()


def test_check_env_passes_on_a_small_map():
    from wildfire_env.server.environment import WildfireEnvironment

    check_env(WildfireEnvironment(), reset_kwargs={"width": 8, "height": 8, "init_sources": 1})


def weighted_total(result) -> float:
    meta = result.observation.metadata
    comps, weights = meta["reward_components"], meta["reward_weights"]
    return sum(comps[k] * weights[k] for k in comps)


def test_every_reward_over_a_seeded_episode_is_the_weighted_sum_of_its_components(env):
    obs = env.reset(seed=3, init_sources=2, head_start=2, water_capacity=3).observation
    results = []
    while not obs.done:
        fires = burning_cells(obs)
        water = obs.remaining_water and fires
        action = WildfireAction(action="water", x=fires[0][0], y=fires[0][1]) if water else None
        results.append(env.step(action or WildfireAction(action="wait")))
        obs = results[-1].observation
    for result in results:
        assert result.reward == pytest.approx(weighted_total(result))
    comps = [r.observation.metadata["reward_components"] for r in results]
    assert set(comps[0]) == {
        "time",
        "extinguished",
        "spread",
        "land_saved",
        "contained",
        "illegal_move",
    }
    assert all(c["time"] == 1 and c["illegal_move"] == 0 for c in comps)
    assert sum(c["extinguished"] for c in comps) == env.state().total_extinguished > 0
    assert all(c["land_saved"] == 0 for c in comps[:-1])
    assert comps[-1]["land_saved"] == pytest.approx(obs.saved_ratio)
    assert comps[-1]["contained"] == float(obs.burning_count == 0)
    weights = results[-1].observation.metadata["reward_weights"]
    assert weights["time"] == -0.01 and weights["contained"] == 0.5


def test_the_end_policy_scores_only_the_illegal_move(env):
    env.reset(seed=5, water_capacity=0, illegal_move="end")
    result = env.step(WildfireAction(action="water", x=0, y=0))
    comps = result.observation.metadata["reward_components"]
    assert comps["illegal_move"] == 1 and comps["time"] == 0 and comps["land_saved"] == 0
    assert result.reward == pytest.approx(weighted_total(result)) == pytest.approx(-1.0)


def test_the_oracle_contains_every_fire_and_saves_more_than_random_or_waiting():
    from wildfire_env.server.environment import WildfireEnvironment
    from wildfire_env.server.oracle import ORACLE

    from openenv.validation.play import null_chooser, oracle_chooser, play, random_chooser

    env = WildfireEnvironment()

    def score(name, chooser, seed):
        episode = play(env, name, name, chooser, seed=seed, options={}, budget=100)
        assert episode.error is None and episode.done, episode.error
        return ORACLE.score_episode(episode)

    for seed in range(6):
        best = score("oracle", oracle_chooser(ORACLE), seed)
        assert best >= 0.94, (seed, best)  # the fire is out, at least 94 % of the map stands
        assert score("random", random_chooser(ORACLE, seed), seed) <= best
        assert score("null", null_chooser(ORACLE), seed) < best - 0.05
    env.close()
