"""The stage's reward chart: every step up to a large bound, then min/max ranges that say
they are downsampled, never means (a Pong -1 is drawn at -1, however long the episode)."""

from __future__ import annotations

import re

import pytest

from openenv.web.rewards import sparkline
from openenv.web.rewards.charts import stacked_chart_svg
from openenv.web.rewards.sparkline import envelope, reward_chart_svg


def bars(svg: str, kind: str) -> list[tuple[float, float]]:
    """(top, bottom) of each ``oe-bar-<kind>`` rect of a chart."""
    found = re.findall(rf'class="oe-bar-{kind}" x="[^"]+" y="([^"]+)" width="[^"]+" '
                       r'height="([^"]+)"', svg)  # fmt: skip
    return [(float(y), float(y) + float(h)) for y, h in found]


def scale(rewards: list[float]):
    """Where the chart draws a value (the chart's own scale, recomputed)."""
    returns = [sum(rewards[: i + 1]) for i in range(len(rewards))]
    low, high = min(0.0, *rewards, *returns), max(0.0, *rewards, *returns)
    pad, height = sparkline.PAD, sparkline.HEIGHT
    return lambda v: round(pad + (high - v) / ((high - low) or 1.0) * (height - 2 * pad), 1)


@pytest.fixture(scope="module")
def pong_rewards() -> list[float]:
    """600 steps of Pong doing nothing: the computer scores now and then (-1)."""
    pytest.importorskip("ale_py")
    from atari_env.models import AtariAction
    from atari_env.server.environment import AtariEnvironment

    env = AtariEnvironment()
    env.reset(seed=0, game_name="pong")
    rewards = []
    for _ in range(600):
        obs = env.step(AtariAction(action_id=0))
        rewards.append(float(obs.reward or 0.0))
        if obs.done:
            break
    env.close()
    assert len(rewards) == 600 and -1.0 in rewards
    return rewards


def test_a_600_step_pong_episode_shows_each_minus_one_at_minus_one(pong_rewards):
    svg = reward_chart_svg(pong_rewards)
    y = scale(pong_rewards)
    negatives = bars(svg, "neg")
    assert len(negatives) == pong_rewards.count(-1.0)  # one bar per point lost, none merged
    assert all(bottom == pytest.approx(y(-1.0), abs=0.1) for _, bottom in negatives)
    assert "downsampled" not in svg
    stacked = stacked_chart_svg([{"observation": {}, "reward": r} for r in pong_rewards])
    assert stacked.count('class="oe-bar"') == 600 and "downsampled" not in stacked


def test_past_the_bound_each_bucket_spans_its_lowest_and_highest_reward():
    rewards = [0.0] * 6000
    rewards[3001] = -1.0  # one point lost among 6,000 steps: a mean would draw -0.05
    rewards[4500] = 1.0
    svg = reward_chart_svg(rewards)
    y = scale(rewards)
    (negative,) = bars(svg, "neg")
    assert negative[1] == pytest.approx(y(-1.0), abs=0.1)
    assert min(top for top, _ in bars(svg, "pos")) == pytest.approx(y(1.0), abs=0.1)
    assert "downsampled: each bar spans the lowest to highest reward of 20 steps" in svg
    assert svg.count("<rect") <= sparkline.BUCKETS + 1  # bounded, whatever the length


def test_up_to_the_bound_every_step_has_its_bar():
    rewards = [0.5, -0.25] * (sparkline.MAX_STEPS // 2)
    svg = reward_chart_svg(rewards)
    assert len(bars(svg, "pos")) == len(bars(svg, "neg")) == sparkline.MAX_STEPS // 2
    assert 'data-bucket="1"' in svg


def test_envelope_keeps_every_extreme():
    values = [0, 3, -2, 0, 0, 7, 1]
    assert [(b.low, b.high) for b in envelope(values, 3)] == [(-2, 3), (0, 7), (1, 1)]
    assert len(envelope(values, 100)) == len(values)


def test_the_playgrounds_chart_of_600_pong_steps_shows_each_point_lost():
    pytest.importorskip("ale_py")
    from atari_env.server.environment import AtariEnvironment
    from fastapi.testclient import TestClient

    from openenv.server import create_app

    with TestClient(create_app(AtariEnvironment)) as client:
        tab = client.post("/web/stage/open", json={}).json()["tab"]
        for _ in range(600):
            answer = client.post("/web/stage/autoplay", json={"tab": tab}).json()
            assert answer["ok"], answer
            if answer["done"]:
                break
        html = client.post("/web/stage/redraw", json={"tab": tab}).json()["html"]
        rewards = client.app.state.openenv.web["controller"].tabs.by_key(tab).episode.rewards
    assert len(rewards) == 600 and -1.0 in rewards
    chart = html[html.index('<svg class="oe-chart"') :]
    chart = chart[: chart.index("</svg>")]
    negatives = bars(chart, "neg")
    assert len(negatives) == sum(1 for r in rewards if r < 0)
    y = scale(list(rewards))
    assert all(bottom == pytest.approx(y(-1.0), abs=0.1) for _, bottom in negatives)
