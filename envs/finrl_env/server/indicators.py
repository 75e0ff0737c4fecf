"""Technical indicators as FinRL computes them (through ``stockstats``), in numpy.

Every function takes arrays shaped ``(days, stocks)`` and returns one of the same shape, with a
value from the first day on (no NaN): windows that are not full yet use the days there are, as
``stockstats`` does with ``min_periods=1``; a ratio whose denominator is zero gives its neutral
value (RSI 50, CCI and DX 0), where FinRL would fill the NaN.

- ``macd``: EMA(12) - EMA(26) of the close (adjusted exponential means).
- ``rsi_30``: 100 * SMMA(gains) / (SMMA(gains) + SMMA(losses)) over 30 days.
- ``cci_30``: (TP - SMA(TP)) / (0.015 * mean absolute deviation of TP), TP = (high+low+close)/3.
- ``dx_30``: 100 * |+DI - -DI| / (+DI + -DI), the DIs from Wilder-smoothed directional moves
  over the smoothed true range.
- ``boll_ub`` / ``boll_lb``: SMA(20) ± 2 standard deviations (sample) of the close.
- ``close_30_sma`` / ``close_60_sma``: simple moving averages of the close.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Prices = dict[str, np.ndarray]  # "close", "high", "low": arrays (days, stocks)

REFERENCE = ("macd", "rsi_30", "cci_30", "dx_30")  # the OpenEnv reference's default list
FINRL = ("macd", "boll_ub", "boll_lb", "rsi_30", "cci_30", "dx_30", "close_30_sma", "close_60_sma")
PRESETS: dict[str, tuple[str, ...]] = {"reference": REFERENCE, "finrl": FINRL, "none": ()}


def ewm_mean(x: np.ndarray, alpha: float) -> np.ndarray:
    """Adjusted exponential mean along the days (pandas ``ewm(alpha=..., adjust=True)``)."""
    out = np.empty_like(x, dtype=np.float64)
    num = np.zeros(x.shape[1:])
    den = np.zeros(x.shape[1:])
    for t in range(x.shape[0]):
        num = x[t] + (1 - alpha) * num
        den = 1 + (1 - alpha) * den
        out[t] = num / den
    return out


def ema(x: np.ndarray, span: int) -> np.ndarray:
    return ewm_mean(x, 2.0 / (span + 1))


def smma(x: np.ndarray, window: int) -> np.ndarray:
    """Wilder's smoothed mean (``ewm(com=window - 1)``)."""
    return ewm_mean(x, 1.0 / window)


def windows(x: np.ndarray, window: int) -> np.ndarray:
    """The trailing ``window`` days of every day, shaped (days, stocks, window); the days
    before the first are NaN (use the nan-aware reductions)."""
    pad = np.full((window - 1, x.shape[1]), np.nan)
    view = np.lib.stride_tricks.sliding_window_view(np.vstack([pad, x]), window, axis=0)
    return view


def sma(x: np.ndarray, window: int) -> np.ndarray:
    csum = np.cumsum(np.vstack([np.zeros((1, x.shape[1])), x]), axis=0)
    counts = np.minimum(np.arange(1, x.shape[0] + 1), window)[:, None]
    return (csum[1:] - csum[np.maximum(np.arange(1, x.shape[0] + 1) - window, 0)]) / counts


def _ratio(num: np.ndarray, den: np.ndarray, neutral: float) -> np.ndarray:
    safe = np.where(den == 0, 1.0, den)
    return np.where(den == 0, neutral, num / safe)


def _previous(x: np.ndarray) -> np.ndarray:
    return np.vstack([x[:1], x[:-1]])


def macd(p: Prices) -> np.ndarray:
    return ema(p["close"], 12) - ema(p["close"], 26)


def rsi(p: Prices, window: int = 30) -> np.ndarray:
    change = p["close"] - _previous(p["close"])
    up, down = smma(np.maximum(change, 0), window), smma(np.maximum(-change, 0), window)
    return _ratio(100 * up, up + down, 50.0)


def cci(p: Prices, window: int = 30) -> np.ndarray:
    tp = (p["high"] + p["low"] + p["close"]) / 3
    mean = sma(tp, window)
    w = windows(tp, window)
    mad = np.nanmean(np.abs(w - np.nanmean(w, axis=2, keepdims=True)), axis=2)
    return _ratio(tp - mean, 0.015 * mad, 0.0)


def dx(p: Prices, window: int = 30) -> np.ndarray:
    high, low, close = p["high"], p["low"], p["close"]
    up, down = high - _previous(high), _previous(low) - low
    plus_dm = np.where((up > down) & (up > 0), up, 0.0)
    minus_dm = np.where((down > up) & (down > 0), down, 0.0)
    prev_close = _previous(close)
    tr = np.maximum.reduce([high - low, np.abs(high - prev_close), np.abs(low - prev_close)])
    atr = smma(tr, window)
    plus_di = _ratio(100 * smma(plus_dm, window), atr, 0.0)
    minus_di = _ratio(100 * smma(minus_dm, window), atr, 0.0)
    return _ratio(100 * np.abs(plus_di - minus_di), plus_di + minus_di, 0.0)


def _std(x: np.ndarray, window: int) -> np.ndarray:
    """Sample standard deviation over the trailing window (0 on the first day)."""
    w = windows(x, window)
    n = np.sum(~np.isnan(w), axis=2)
    squares = np.nansum((w - np.nanmean(w, axis=2, keepdims=True)) ** 2, axis=2)
    return np.sqrt(squares / np.maximum(n - 1, 1))


def boll_ub(p: Prices) -> np.ndarray:
    return sma(p["close"], 20) + 2 * _std(p["close"], 20)


def boll_lb(p: Prices) -> np.ndarray:
    return sma(p["close"], 20) - 2 * _std(p["close"], 20)


INDICATORS: dict[str, Callable[[Prices], np.ndarray]] = {
    "macd": macd,
    "rsi_30": rsi,
    "cci_30": cci,
    "dx_30": dx,
    "boll_ub": boll_ub,
    "boll_lb": boll_lb,
    "close_30_sma": lambda p: sma(p["close"], 30),
    "close_60_sma": lambda p: sma(p["close"], 60),
}


def compute(names: tuple[str, ...], prices: Prices) -> dict[str, np.ndarray]:
    """The named indicators of ``prices``, each an array (days, stocks)."""
    return {name: INDICATORS[name](prices) for name in names}
