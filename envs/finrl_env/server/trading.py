"""One day of trading, as FinRL's ``StockTradingEnv.step`` does it.

Each action in [-1, 1] becomes ``int(action * hmax)`` shares (truncated toward zero). Sells go
first, the largest first: a sell is clamped to the shares held (selling what you do not hold
sells nothing, never goes short) and credits ``price * shares * (1 - sell_cost_pct)``. Buys go
next, the largest first: a buy is clamped to what the cash affords,
``cash // (price * (1 + buy_cost_pct))`` shares, and debits ``price * shares * (1 +
buy_cost_pct)``. The cost of a trade is ``price * shares * cost_pct``.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Fees:
    """Trading rules of an episode."""

    hmax: int
    buy_cost_pct: float
    sell_cost_pct: float


@dataclasses.dataclass(frozen=True)
class Fill:
    """What a day's orders did: the new cash and holdings, the signed shares traded per stock
    and the transaction cost paid."""

    cash: float
    holdings: np.ndarray
    shares: np.ndarray
    cost: float


def orders(actions: np.ndarray, hmax: int) -> np.ndarray:
    """Shares asked per stock: ``int(action * hmax)`` (FinRL's ``astype(int)``)."""
    return (actions * hmax).astype(np.int64)


def execute(
    cash: float, holdings: np.ndarray, prices: np.ndarray, actions: np.ndarray, fees: Fees
) -> Fill:
    """Apply ``actions`` at ``prices`` (see the module docstring)."""
    asked = orders(actions, fees.hmax)
    held = holdings.astype(np.int64).copy()
    shares = np.zeros_like(asked)
    cost = 0.0
    ranked = np.argsort(asked, kind="stable")
    for i in ranked[: int(np.sum(asked < 0))]:
        sold = int(min(-asked[i], held[i]))
        cash += prices[i] * sold * (1 - fees.sell_cost_pct)
        cost += prices[i] * sold * fees.sell_cost_pct
        held[i] -= sold
        shares[i] = -sold
    for i in ranked[::-1][: int(np.sum(asked > 0))]:
        affordable = int(cash // (prices[i] * (1 + fees.buy_cost_pct)))
        bought = min(int(asked[i]), affordable)
        cash -= prices[i] * bought * (1 + fees.buy_cost_pct)
        cost += prices[i] * bought * fees.buy_cost_pct
        held[i] += bought
        shares[i] = bought
    return Fill(float(cash), held, shares, float(cost))


def portfolio_value(cash: float, holdings: np.ndarray, prices: np.ndarray) -> float:
    """Cash plus the holdings at ``prices`` (FinRL's total asset)."""
    return float(cash + np.sum(holdings * prices))
