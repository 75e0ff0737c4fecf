"""Wire types of the FinRL stock-trading environment, shared by its client and its server.

Names follow the OpenEnv reference's ``finrl_env``: ``FinRLAction(actions=[...])`` and
``FinRLObservation.state`` / ``portfolio_value`` / ``date``; the other observation fields name
the parts of ``state``.
"""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State


class FinRLAction(Action):
    """One value in [-1, 1] per stock: positive buys, negative sells, times ``hmax`` shares."""

    actions: list[float] = Field(
        description="One value in [-1, 1] per stock; int(value * hmax) shares bought (> 0) or sold"
    )


class FinRLObservation(Observation):
    """Today's account and market, as FinRL's flat state vector and by name."""

    state: list[float] = Field(
        default_factory=list,
        description="FinRL's state: [cash, prices..., holdings..., each indicator per stock...]",
    )
    portfolio_value: float = Field(default=0.0, description="Cash plus holdings at today's close")
    date: str = Field(default="", description="Today's trading date")
    tickers: list[str] = Field(default_factory=list, description="The stocks, in action order")
    cash: float = Field(default=0.0, description="Cash balance")
    prices: list[float] = Field(default_factory=list, description="Today's close per stock")
    holdings: list[int] = Field(default_factory=list, description="Shares held per stock")
    indicators: dict[str, list[float]] = Field(
        default_factory=dict, description="Each technical indicator, one value per stock"
    )
    shares_traded: list[int] = Field(
        default_factory=list, description="Shares the last step bought (> 0) or sold (< 0)"
    )
    cost: float = Field(default=0.0, description="Transaction cost paid by the last step")
    day: int = Field(default=0, description="Index of today in the episode's dates")
    message: str = Field(default="", description="What happened")


class FinRLState(State):
    """The episode's configuration and bookkeeping (FinRL's names)."""

    data: str = "synthetic"
    market: str = "mixed"
    tickers: list[str] = Field(default_factory=list)
    stock_dim: int = 0
    state_space: int = 0
    action_space: int = 0
    tech_indicator_list: list[str] = Field(default_factory=list)
    hmax: int = 100
    initial_amount: float = 100_000.0
    buy_cost_pct: float = 0.001
    sell_cost_pct: float = 0.001
    reward_scaling: float = 1e-4
    episode_length: int = 0
    day: int = 0
    cost: float = Field(default=0.0, description="Transaction costs paid so far")
    trades: int = Field(default=0, description="Trades made so far")
    asset_memory: list[float] = Field(
        default_factory=list, description="Portfolio value per day so far"
    )
