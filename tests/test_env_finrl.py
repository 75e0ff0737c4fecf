"""FinRL stock trading over the wire: seeded markets replay, trades cost what FinRL charges,
sales are clamped to the shares held, the portfolio adds up, the operator's CSV is read (or
refused, saying why) and bad actions are refused without harming the session."""

from __future__ import annotations

import math
import random

import httpx
import numpy as np
import pytest
from finrl_env import FinRLAction, FinRLEnv
from finrl_env.server import indicators
from finrl_env.server.environment import FinRLEnvironment

from openenv.core import ClientError, Svg
from tests.conftest import env_fixtures, module_app, served

url, env = env_fixtures("finrl_env.server.app:app", FinRLEnv)

GOOD_CSV = """date,tic,close,high,low,volume,macd
2020-01-03,BBB,20.0,20.5,19.5,1000,0.5
2020-01-02,AAA,10.0,10.5,9.5,1000,0.1
2020-01-02,BBB,21.0,21.5,20.5,1000,0.2
2020-01-03,AAA,11.0,11.5,10.5,1000,0.3
2020-01-06,AAA,12.0,12.5,11.5,1000,0.4
2020-01-06,BBB,19.0,19.5,18.5,1000,0.6
"""


def act(env, *values: float):
    return env.step(FinRLAction(actions=list(values)))


def play(env, seed: int, steps: int) -> list[str]:
    """An episode of random actions from ``seed``: every observation as JSON."""
    rng = random.Random(seed)
    first = env.reset(seed=seed, tickers=4, episode_length=40)
    seen = [first.observation.model_dump_json()]
    for _ in range(steps):
        result = act(env, *[rng.uniform(-1, 1) for _ in range(4)])
        seen.append(result.observation.model_dump_json() + repr(result.reward))
    return seen


def test_a_seed_replays_the_same_market_and_episode(env):
    assert play(env, 7, 20) == play(env, 7, 20)
    assert play(env, 7, 3)[0] != play(env, 8, 3)[0]


def test_the_observation_has_the_reference_names_and_finrl_state_layout(env):
    obs = env.reset(seed=1, tickers=3).observation
    assert obs.tickers == ["ACME", "BOLT", "CRUX"] and obs.date == "2021-01-04"
    assert obs.reward == 0 and not obs.done and obs.portfolio_value == 100_000
    assert list(obs.indicators) == ["macd", "rsi_30", "cci_30", "dx_30"]
    expected = [obs.cash, *obs.prices, *map(float, obs.holdings)]
    for values in obs.indicators.values():
        expected += values
    assert obs.state == expected and len(obs.state) == 1 + 3 * 2 + 4 * 3
    state = env.state()
    assert (state.stock_dim, state.action_space, state.state_space) == (3, 3, len(obs.state))


def test_buying_pays_price_times_shares_plus_the_cost(env):
    start = env.reset(seed=3, hmax=10, buy_cost_pct=0.01).observation
    price = start.prices[0]
    result = act(env, 0.55, 0, 0)  # int(0.55 * 10) = 5 shares, as FinRL truncates
    obs = result.observation
    assert obs.holdings == [5, 0, 0] and obs.shares_traded == [5, 0, 0]
    assert obs.cash == pytest.approx(100_000 - price * 5 * 1.01)
    assert obs.cost == pytest.approx(price * 5 * 0.01)
    value = obs.cash + 5 * obs.prices[0]
    assert obs.portfolio_value == pytest.approx(value)
    assert result.reward == pytest.approx((value - 100_000) * 1e-4)


def test_selling_more_than_held_sells_what_is_held_and_never_goes_short(env):
    env.reset(seed=3, hmax=10, sell_cost_pct=0.002)
    act(env, 0.3, 0, 0)  # 3 shares of ACME
    before = act(env, 0, 0, 0).observation
    obs = act(env, -1, -1, 0).observation  # asks to sell 10 of each
    assert obs.shares_traded == [-3, 0, 0] and obs.holdings == [0, 0, 0]
    assert obs.cash == pytest.approx(before.cash + before.prices[0] * 3 * 0.998)
    assert obs.cost == pytest.approx(before.prices[0] * 3 * 0.002)
    assert "sold 3 ACME" in obs.message


def test_a_buy_is_clamped_to_what_the_cash_affords(env):
    start = env.reset(seed=5, initial_amount=1000, hmax=1000, tickers=1).observation
    obs = act(env, 1).observation
    affordable = math.floor(1000 / (start.prices[0] * 1.001))
    assert obs.holdings == [affordable] and obs.cash >= 0
    assert obs.cash < start.prices[0] * 1.001


def test_the_portfolio_adds_up_over_a_whole_episode(env):
    rng = random.Random(0)
    env.reset(seed=11, tickers=5, episode_length=30, reward_scaling=1)
    rewards, last = [], None
    for step in range(29):
        result = act(env, *[rng.uniform(-1, 1) for _ in range(5)])
        obs = result.observation
        assert obs.portfolio_value == pytest.approx(
            obs.cash + sum(h * p for h, p in zip(obs.holdings, obs.prices, strict=True))
        )
        assert result.done == (step == 28)
        rewards.append(result.reward)
        last = obs
    state = env.state()
    assert sum(rewards) == pytest.approx(last.portfolio_value - 100_000)
    assert state.asset_memory[-1] == pytest.approx(last.portfolio_value)
    assert len(state.asset_memory) == 30 and state.day == 29 and state.cost > 0
    with pytest.raises(ClientError, match="reset"):
        act(env, 0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ([0.5, 0.5], "send 3 action values"),
        ([0.5, 1.5, 0], "actions[1] (BOLT)"),
        ([0, 0, -2], "[-1, 1]"),
        ([float("nan"), 0, 0], "is nan"),
        ([0, float("inf"), 0], "is inf"),
    ],
)
def test_a_bad_action_is_refused_and_the_session_goes_on(env, values, reason):
    env.reset(seed=2)
    act(env, 0.2, 0, 0)
    before = env.state()
    with pytest.raises(ClientError) as refused:
        env.step({"actions": values})
    assert refused.value.server_code in ("VALIDATION_ERROR", "INVALID_JSON")
    assert reason in refused.value.message
    assert env.state() == before
    assert act(env, 0, 0, 0).observation.day == 2


def test_reset_options_are_bounded(env):
    for bad in ({"tickers": 31}, {"hmax": 0}, {"episode_length": 1}, {"buy_cost_pct": 0.5}):
        with pytest.raises(ClientError):
            env.reset(**bad)
    with pytest.raises(ClientError, match="data='synthetic'"):
        env.reset(data="csv")  # this server has no CSV
    assert env.reset(seed=0, market="bear", tickers=30).observation.tickers[-1] == "DUNE"


def test_the_operators_csv_is_traded(env, tmp_path, monkeypatch):
    path = tmp_path / "prices.csv"
    path.write_text(GOOD_CSV)
    monkeypatch.setenv("FINRL_DATA_CSV", str(path))
    obs = env.reset(seed=0, hmax=1).observation
    assert obs.tickers == ["AAA", "BBB"] and obs.prices == [10.0, 21.0]
    assert obs.date == "2020-01-02" and obs.indicators["macd"] == [0.1, 0.2]  # given, not computed
    assert env.state().data == "csv" and env.state().episode_length == 3
    obs = act(env, 1, 0).observation
    assert obs.date == "2020-01-03" and obs.prices == [11.0, 20.0] and obs.holdings == [1, 0]
    last = act(env, 0, 0)
    assert last.done and last.observation.prices == [12.0, 19.0]
    first = env.reset(tickers=1, episode_length=2).observation
    assert first.tickers == ["AAA"]
    assert act(env, 0).done
    assert env.reset(data="synthetic", seed=0).observation.tickers[0] == "ACME"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("date,close\n2020-01-02,1\n", "no tic column"),
        ("date,tic,close\n2020-01-02,AAA,abc\n2020-01-03,AAA,1\n", "line 2: close 'abc'"),
        (
            "date,tic,close\n2020-01-02,AAA,1\n2020-01-02,BBB,1\n2020-01-03,AAA,1\n",
            "no row for BBB",
        ),
        ("date,tic,close\n02/01/2020,AAA,1\n", "not ISO"),
        ("date,tic,close\n2020-01-02,AAA,-3\n2020-01-03,AAA,1\n", "must be above 0"),
        ("date,tic,close\n2020-01-02,AAA,nan\n2020-01-03,AAA,1\n", "finite"),
        ("date,tic,close\n2020-01-02,AAA,1,9\n", "line 2: 4 cells"),
        ("date,tic,close\n2020-01-02,AAA,1\n2020-01-02,AAA,2\n", "second row for AAA"),
        ("date,tic,close\n2020-01-02,AAA,1\n", "one date"),
        ("", "empty"),
        (",".join(f"c{i}" for i in range(70)) + "\n", "at most 64"),
    ],
)
def test_a_malformed_csv_is_refused_saying_why(env, tmp_path, monkeypatch, text, reason):
    env.reset(seed=0)
    act(env, 0.1, 0, 0)
    path = tmp_path / "bad.csv"
    path.write_text(text)
    monkeypatch.setenv("FINRL_DATA_CSV", str(path))
    with pytest.raises(ClientError) as refused:
        env.reset()
    assert refused.value.server_code == "EXECUTION_ERROR"
    assert reason in refused.value.message and "FINRL_DATA_CSV" in refused.value.message
    assert str(tmp_path) not in refused.value.message  # the server's paths stay private
    assert act(env, 0, 0, 0).observation.day == 2  # the episode before goes on


def test_a_csv_over_the_size_bound_is_refused(env, tmp_path, monkeypatch):
    path = tmp_path / "huge.csv"
    with path.open("wb") as f:
        f.truncate(33 * 2**20)
    monkeypatch.setenv("FINRL_DATA_CSV", str(path))
    with pytest.raises(ClientError, match="at most"):
        env.reset()


@pytest.fixture(scope="module")
def full_app():
    """The module's own app (its /config route included), served once: its sessions end
    with it."""
    with served(module_app("finrl_env.server.app:app")) as base:
        yield base


def test_get_config_says_what_a_default_reset_plays(full_app):
    with FinRLEnv(base_url=full_app).sync() as client:
        config = client.get_config()
        obs = client.reset(seed=0).observation
    assert config["stock_dim"] == config["action_space"] == len(obs.tickers) == 3
    assert config["state_space"] == len(obs.state)
    assert config["tech_indicators"] == ["macd", "rsi_30", "cci_30", "dx_30"]
    assert config["initial_amount"] == obs.portfolio_value
    assert httpx.get(full_app + "/config").status_code == 200


def test_the_indicators_match_pandas_as_stockstats_computes_them():
    pd = pytest.importorskip("pandas")
    close = np.exp(np.cumsum(np.random.default_rng(0).normal(0, 0.02, (120, 2)), axis=0)) * 50
    prices = {"close": close, "high": close * 1.01, "low": close * 0.99}
    frame = pd.DataFrame(close)
    macd = frame.ewm(span=12, adjust=True).mean() - frame.ewm(span=26, adjust=True).mean()
    np.testing.assert_allclose(indicators.macd(prices), macd.to_numpy())
    change = frame.diff().fillna(0)
    up = change.clip(lower=0).ewm(com=29, adjust=True).mean()
    down = (-change).clip(lower=0).ewm(com=29, adjust=True).mean()
    np.testing.assert_allclose(indicators.rsi(prices)[1:], (100 * up / (up + down))[1:].to_numpy())
    sma = frame.rolling(30, min_periods=1).mean()
    np.testing.assert_allclose(indicators.INDICATORS["close_30_sma"](prices), sma.to_numpy())
    std = frame.rolling(20, min_periods=1).std().fillna(0)
    ub = frame.rolling(20, min_periods=1).mean() + 2 * std
    np.testing.assert_allclose(indicators.boll_ub(prices), ub.to_numpy())
    assert np.all(np.isfinite(indicators.cci(prices))) and np.all(indicators.dx(prices) >= 0)


def test_the_chart_is_bounded_and_escaped_with_a_control_per_stock(tmp_path, monkeypatch):
    path = tmp_path / "odd.csv"
    path.write_text("date,tic,close\n2020-01-02,<b>&x,1\n2020-01-03,<b>&x,2\n")
    monkeypatch.setenv("FINRL_DATA_CSV", str(path))
    environment = FinRLEnvironment()
    environment.reset()
    markup = environment.render().markup
    assert "<b>" not in markup and "&lt;b&gt;&amp;x" in markup

    environment.reset(data="synthetic", seed=0, tickers=30, episode_length=2520)
    sliders = environment.action_sliders()
    assert len(sliders.sliders) == 30
    assert all((s.low, s.high) == (-1, 1) for s in sliders.sliders)
    labels = [c.label for c in environment.legal_actions()]
    assert labels == ["Buy all (+1)", "Hold (0)", "Sell all (−1)"]
    rng = random.Random(0)
    while not environment.step(FinRLAction(**sliders.action_for(sliders.sample(rng)))).done:
        pass
    view = environment.render()
    assert isinstance(view, Svg) and len(view.markup) < 200_000


def test_the_reference_docs_client_code_runs_unchanged(full_app):
    """The seed's Quick Start: a plain (not ``.sync()``) client, ``get_config``, a loop."""
    client = FinRLEnv(base_url=full_app)
    config = client.get_config()
    result = client.reset()
    assert result.observation.portfolio_value == config["initial_amount"]
    for _ in range(100):
        state = result.observation.state
        assert len(state) == config["state_space"]
        actions = np.random.uniform(-1, 1, size=config["stock_dim"]).tolist()
        result = client.step(FinRLAction(actions=actions))
        assert isinstance(result.reward, float) and result.observation.date
        if result.done:
            break
    assert client.state().step_count == 100
    client.close()
