"""FinRL stock trading: buy and sell several stocks day by day, as FinRL's StockTradingEnv.

Data: a seeded synthetic market (geometric Brownian motion, ``server/market.py``) or the CSV the
server's operator names in ``$FINRL_DATA_CSV`` (``server/csv_data.py``); never a path from a
visitor. Each step trades at today's close, then the day advances.

Action: ``FinRLAction(actions=[...])``, one value in [-1, 1] per stock; ``int(value * hmax)``
shares are bought (> 0) or sold (< 0), sells first. Selling more than held sells what is held;
buying more than the cash affords buys what it affords (``server/trading.py``). A wrong number
of values, a value outside [-1, 1] or not finite is refused with the reason and changes nothing.

Observation: FinRL's flat ``state`` ``[cash, prices..., holdings..., indicators...]`` (each
indicator for every stock in turn), ``portfolio_value``, ``date``, and the same by name.

Reward: the change of the portfolio value over the step times ``reward_scaling`` (FinRL's,
default 1e-4). The episode ends (``done``) on the step that reaches the last date: FinRL signals
it one call later, with a step that trades nothing.
"""

from __future__ import annotations

import functools
import math
import uuid
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from finrl_env.models import FinRLAction, FinRLObservation, FinRLState
from finrl_env.server import chart, csv_data, indicators
from finrl_env.server.market import MAX_TICKERS, TRADING_DAYS, Market, MarketPreset, synthetic
from finrl_env.server.trading import Fees, execute, portfolio_value
from openenv.core import (
    ActionChoice,
    ActionSliders,
    Environment,
    ExecutionError,
    InvalidAction,
    ResetNeeded,
    Slider,
    Svg,
)

MAX_DAYS = 2520  # ten years of trading days: what one session's arrays may hold
DEFAULT_TICKERS = 3
Source = Literal["synthetic", "csv"]
IndicatorSet = Literal["reference", "finrl", "none"]
Tickers = Annotated[
    int,
    Field(ge=1, le=MAX_TICKERS, description="Stocks to trade; default 3 synthetic, all of a CSV"),
]
Days = Annotated[
    int,
    Field(ge=2, le=MAX_DAYS, description="Trading days; default 252 synthetic, a CSV's first 2520"),
]
Pct = Annotated[float, Field(ge=0, le=0.1, description="Fraction of the trade's value, 0 to 0.1")]


class FinRLEnvironment(Environment[FinRLAction, FinRLObservation, FinRLState]):
    """One trading account per session; see the module docstring."""

    how_to_play = (
        "Each day, buy, sell or hold each stock with the buttons or sliders; the chart "
        "shows prices, your trades and your portfolio's value."
    )
    legend = {
        "▲": "bought",
        "▼": "sold",
    }

    def __init__(self) -> None:
        self._market: Market | None = None
        self._tech: dict[str, np.ndarray] = {}
        self._fees = Fees(100, 0.001, 0.001)
        self._cash = 0.0
        self._holdings = np.zeros(0, dtype=np.int64)
        self._trades: list[tuple[int, int, int]] = []  # (day, stock, shares) for the chart
        self._state = FinRLState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        data: Source | None = None,
        tickers: Tickers | None = None,
        market: MarketPreset = "mixed",
        episode_length: Days | None = None,
        initial_amount: Annotated[float, Field(gt=0, le=1e12)] = 100_000.0,
        hmax: Annotated[int, Field(ge=1, le=1_000_000, description="Shares per unit action")] = 100,
        buy_cost_pct: Pct = 0.001,
        sell_cost_pct: Pct = 0.001,
        reward_scaling: Annotated[float, Field(gt=0, le=1)] = 1e-4,
        tech_indicators: IndicatorSet = "reference",
    ) -> FinRLObservation:
        source = data or default_source()
        names = indicators.PRESETS[tech_indicators]
        self._market = load_market(source, self.np_random, tickers, episode_length, market, names)
        self._tech = self._market.indicators(names)
        self._fees = Fees(int(hmax), float(buy_cost_pct), float(sell_cost_pct))
        self._cash = float(initial_amount)
        self._holdings = np.zeros(len(self._market.tickers), dtype=np.int64)
        self._trades = []
        self._state = self._new_state(episode_id, source, market, names, reward_scaling)
        self._state.asset_memory = [self._value()]
        stocks, days = len(self._market.tickers), self._market.days
        return self._observe(0.0, f"{stocks} stocks, {days} trading days, cash {self._cash:,.2f}.")

    def step(self, action: FinRLAction) -> FinRLObservation:
        actions = self._check(action.actions)
        s, m = self._state, self._require_market()
        begin = self._value()
        fill = execute(self._cash, self._holdings, m.close[s.day], actions, self._fees)
        self._cash, self._holdings = fill.cash, fill.holdings
        traded = np.flatnonzero(fill.shares)
        self._trades = (self._trades + [(s.day, int(i), int(fill.shares[i])) for i in traded])[
            -chart.MAX_MARKS :
        ]
        s.day += 1
        s.step_count += 1
        s.cost += fill.cost
        s.trades += len(traded)
        end = self._value()
        s.asset_memory = [*s.asset_memory, end]
        done = s.day >= m.days - 1
        obs = self._observe((end - begin) * s.reward_scaling, _said(m.tickers, fill.shares), done)
        obs.shares_traded, obs.cost = fill.shares.tolist(), fill.cost
        return obs

    @property
    def state(self) -> FinRLState:
        return self._state

    def render(self) -> Svg | None:
        m, s = self._market, self._state
        if m is None:
            return None
        picture = chart.Picture(
            m.tickers, m.dates, m.close, s.day, s.asset_memory, s.initial_amount,
            self._holdings, self._trades,
        )  # fmt: skip
        return Svg(chart.draw(picture))

    def legal_actions(self) -> list[ActionChoice]:
        if self._market is None:
            return []
        n = len(self._market.tickers)
        return [
            ActionChoice("Buy all (+1)", {"actions": [1.0] * n}, key="b",
                         description=f"buy {self._fees.hmax} shares of every stock"),
            ActionChoice("Hold (0)", {"actions": [0.0] * n}, key="h", description="trade nothing"),
            ActionChoice("Sell all (−1)", {"actions": [-1.0] * n}, key="s",
                         description=f"sell up to {self._fees.hmax} shares of every stock"),
        ]  # fmt: skip

    def action_sliders(self) -> ActionSliders | None:
        """One slider per stock, from -1 (sell hmax shares) to +1 (buy hmax shares)."""
        if self._market is None:
            return None
        return ActionSliders(
            "actions", tuple(Slider(t[: chart.MAX_LABEL], -1.0, 1.0) for t in self._market.tickers)
        )

    # -- internals -------------------------------------------------------------------------

    def _new_state(
        self,
        episode_id: str | None,
        source: str,
        preset: str,
        names: tuple[str, ...],
        scaling: float,
    ) -> FinRLState:
        m = self._require_market()
        n = len(m.tickers)
        return FinRLState(
            episode_id=episode_id or str(uuid.uuid4()),
            data=source,
            market=preset if source == "synthetic" else "csv",
            tickers=list(m.tickers),
            stock_dim=n,
            state_space=1 + 2 * n + len(names) * n,
            action_space=n,
            tech_indicator_list=list(names),
            hmax=self._fees.hmax,
            initial_amount=self._cash,
            buy_cost_pct=self._fees.buy_cost_pct,
            sell_cost_pct=self._fees.sell_cost_pct,
            reward_scaling=float(scaling),
            episode_length=m.days,
        )

    def _require_market(self) -> Market:
        if self._market is None:  # the base class refuses a step before reset already
            raise ResetNeeded("call reset() to start an episode")
        return self._market

    def _check(self, values: list[float]) -> np.ndarray:
        m = self._require_market()
        n = len(m.tickers)
        if len(values) != n:
            names = ", ".join(m.tickers[:10]) + (", ..." if n > 10 else "")
            raise InvalidAction(
                f"send {n} action values, one per stock ({names}); got {len(values)}"
            )
        for i, v in enumerate(values):
            if not (isinstance(v, int | float) and math.isfinite(v) and -1.0 <= v <= 1.0):
                raise InvalidAction(
                    f"actions[{i}] ({m.tickers[i]}) is {v!r}; give a number in [-1, 1]"
                )
        return np.asarray(values, dtype=np.float64)

    def _value(self) -> float:
        prices = self._require_market().close[self._state.day]
        return portfolio_value(self._cash, self._holdings, prices)

    def _observe(self, reward: float, message: str, done: bool = False) -> FinRLObservation:
        m, day = self._require_market(), self._state.day
        prices = m.close[day]
        tech = {name: values[day].tolist() for name, values in self._tech.items()}
        vector = [self._cash, *prices.tolist(), *self._holdings.astype(float).tolist()]
        for per_stock in tech.values():
            vector.extend(per_stock)
        value = self._value()
        return FinRLObservation(
            state=vector,
            portfolio_value=value,
            date=m.dates[day],
            tickers=list(m.tickers),
            cash=self._cash,
            prices=prices.tolist(),
            holdings=self._holdings.tolist(),
            indicators=tech,
            shares_traded=[0] * len(m.tickers),
            day=day,
            message=message if not done else f"{message} Last day: final value {value:,.2f}.",
            reward=float(reward),
            done=done,
            metadata={"total_cost": self._state.cost, "total_trades": self._state.trades},
        )


def default_source() -> str:
    """``csv`` when the operator configured one (``$FINRL_DATA_CSV``), else ``synthetic``."""
    return "csv" if csv_data.configured_path() else "synthetic"


def load_market(
    source: str,
    rng: np.random.Generator,
    tickers: int | None,
    days: int | None,
    preset: str,
    names: tuple[str, ...],
) -> Market:
    """The episode's market: synthetic from ``rng``, or the first dates/tickers of the CSV."""
    if source == "synthetic":
        return synthetic(rng, tickers or DEFAULT_TICKERS, days or TRADING_DAYS, preset)
    market = csv_market(names)
    if tickers is not None and tickers > len(market.tickers):
        raise InvalidAction(f"tickers={tickers}: the CSV has {len(market.tickers)} stocks")
    stocks = tickers or len(market.tickers)
    return market.window(min(days or MAX_DAYS, market.days), stocks)


def csv_market(names: tuple[str, ...]) -> Market:
    """The operator's CSV with the indicators ``names``, shared by every session (read and
    computed once per file version; a session's window is a view of it)."""
    path = csv_data.configured_path()
    if path is None:
        raise InvalidAction(
            f"this server has no CSV: its operator sets ${csv_data.ENV_VAR}; use data='synthetic'"
        )
    try:
        market = csv_data.load(path)
    except csv_data.CsvError as exc:
        raise ExecutionError(f"the server's CSV (${csv_data.ENV_VAR}) is unusable: {exc}") from None
    return _computed(market, names)


@functools.lru_cache(maxsize=8)
def _computed(market: Market, names: tuple[str, ...]) -> Market:
    return market.with_indicators(names)


def default_config() -> dict[str, Any]:
    """What a reset without options plays (the reference's ``GET /config``)."""
    env = FinRLEnvironment()
    env.reset(seed=0)
    s = env.state
    return {
        "data": s.data,
        "stock_dim": s.stock_dim,
        "tickers": s.tickers,
        "hmax": s.hmax,
        "initial_amount": s.initial_amount,
        "buy_cost_pct": [s.buy_cost_pct] * s.stock_dim,
        "sell_cost_pct": [s.sell_cost_pct] * s.stock_dim,
        "reward_scaling": s.reward_scaling,
        "state_space": s.state_space,
        "action_space": s.action_space,
        "tech_indicators": s.tech_indicator_list,
        "tech_indicator_list": s.tech_indicator_list,
        "episode_length": s.episode_length,
    }


def _said(tickers: tuple[str, ...], shares: np.ndarray) -> str:
    done = [
        f"{'bought' if n > 0 else 'sold'} {abs(int(n))} {t[:16]}"
        for t, n in zip(tickers, shares, strict=True)
        if n
    ]
    return ("; ".join(done[:6]) + ("; ..." if len(done) > 6 else "") or "no trade") + "."
