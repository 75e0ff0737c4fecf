"""Price series to trade: a ``Market`` (dates, tickers, daily OHLC per stock) and the seeded
synthetic markets of geometric Brownian motion.

Synthetic prices: each stock starts between 20 and 300 and follows
``S[t+1] = S[t] * exp((mu - sigma^2 / 2) dt + sigma sqrt(dt) Z)``, ``dt = 1/252``, where ``Z``
mixes one market-wide shock with the stock's own (correlation ``rho``). The preset chooses the
ranges ``mu`` and ``sigma`` are drawn from; everything is drawn from the episode's generator, so
a seed gives the same market every time.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np

from finrl_env.server import indicators

MarketPreset = Literal["mixed", "bull", "bear", "volatile", "calm"]
# preset: (annual drift range, annual volatility range, correlation with the market)
PRESETS: dict[str, tuple[tuple[float, float], tuple[float, float], float]] = {
    "mixed": ((-0.15, 0.30), (0.15, 0.45), 0.4),
    "bull": ((0.20, 0.60), (0.15, 0.35), 0.5),
    "bear": ((-0.60, -0.15), (0.20, 0.45), 0.5),
    "volatile": ((-0.20, 0.40), (0.50, 0.90), 0.3),
    "calm": ((0.00, 0.12), (0.05, 0.15), 0.3),
}
NAMES = (
    "ACME", "BOLT", "CRUX", "DYNA", "EPIC", "FLUX", "GRID", "HALO", "IONX", "JADE",
    "KITE", "LUMA", "MOXY", "NOVA", "ORBT", "PIXL", "QUAD", "RIFT", "SOLR", "TIDE",
    "UMBR", "VOLT", "WAVE", "XENO", "YARD", "ZEST", "ARCH", "BRIO", "CORE", "DUNE",
)  # fmt: skip
MAX_TICKERS = len(NAMES)
TRADING_DAYS = 252
FIRST_DAY = "2021-01-04"


@dataclasses.dataclass(frozen=True, eq=False)  # compared (and cached) by identity
class Market:
    """Daily prices of ``tickers`` on ``dates``: arrays shaped (days, stocks).

    ``given`` holds indicator columns read from a CSV; the others are computed on demand.
    """

    tickers: tuple[str, ...]
    dates: tuple[str, ...]
    close: np.ndarray
    high: np.ndarray
    low: np.ndarray
    given: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)

    @property
    def days(self) -> int:
        return len(self.dates)

    def window(self, days: int, stocks: int) -> Market:
        """The first ``days`` dates of the first ``stocks`` tickers."""
        cut = (slice(0, days), slice(0, stocks))
        return Market(
            self.tickers[:stocks],
            self.dates[:days],
            self.close[cut],
            self.high[cut],
            self.low[cut],
            {name: values[cut] for name, values in self.given.items()},
        )

    def with_indicators(self, names: tuple[str, ...]) -> Market:
        """This market with the named indicators computed into ``given`` (every indicator
        looks back only, so a window of the result equals the window's own indicators)."""
        return dataclasses.replace(self, given={**self.given, **self.indicators(names)})

    def indicators(self, names: tuple[str, ...]) -> dict[str, np.ndarray]:
        """The named indicators per day and stock: the CSV's columns, else computed."""
        prices = {"close": self.close, "high": self.high, "low": self.low}
        missing = tuple(n for n in names if n not in self.given)
        computed = indicators.compute(missing, prices)
        return {n: self.given[n] if n in self.given else computed[n] for n in names}


def synthetic(rng: np.random.Generator, stocks: int, days: int, preset: str) -> Market:
    """A seeded market of ``stocks`` GBM price paths over ``days`` business days."""
    (mu_lo, mu_hi), (sigma_lo, sigma_hi), rho = PRESETS[preset]
    dt = 1.0 / TRADING_DAYS
    start = rng.uniform(20, 300, stocks)
    mu = rng.uniform(mu_lo, mu_hi, stocks)
    sigma = rng.uniform(sigma_lo, sigma_hi, stocks)
    shocks = np.sqrt(rho) * rng.standard_normal((days - 1, 1))
    shocks = shocks + np.sqrt(1 - rho) * rng.standard_normal((days - 1, stocks))
    log_steps = (mu - sigma**2 / 2) * dt + sigma * np.sqrt(dt) * shocks
    log_path = np.vstack([np.zeros(stocks), np.cumsum(log_steps, axis=0)])
    close = np.round(start * np.exp(log_path), 2)
    spread = np.abs(rng.normal(0, 0.6, (days, stocks))) * sigma * np.sqrt(dt)
    high = np.round(close * (1 + spread), 2)
    low = np.round(close * (1 - spread * rng.uniform(0.5, 1.5, (days, stocks))), 2)
    return Market(NAMES[:stocks], business_days(days), close, high, np.minimum(low, close))


def business_days(days: int) -> tuple[str, ...]:
    """``days`` dates, Monday to Friday, from FIRST_DAY (holidays are not skipped)."""
    first = np.datetime64(FIRST_DAY)
    dates = np.busday_offset(first, np.arange(days), roll="forward")
    return tuple(str(d) for d in dates)
