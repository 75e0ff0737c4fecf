"""The playground's drawing: prices and the portfolio value over the episode, as SVG.

Top: each stock's close as a change since the first day (stocks of any price share one axis),
drawn up to today, with the trades marked (green ▲ bought, red ▼ sold); the legend gives each
stock's price and the shares held. Bottom: the portfolio value, against the initial amount.
The size is bounded whatever the episode: at most ``MAX_LINES`` stocks are drawn, each line has
at most ``MAX_POINTS`` points and at most ``MAX_MARKS`` trades are marked; every text is escaped.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable

import numpy as np

WIDTH, HEIGHT = 640, 440
LEFT, RIGHT = 58, 492  # the plots' x range; the legend is to the right
PRICE_Y, VALUE_Y = (54, 262), (302, 410)  # each plot's top and bottom
MAX_LINES = 10
MAX_POINTS = 400
MAX_MARKS = 60
MAX_LABEL = 12
Scale = Callable[[float], float]  # a value to its y coordinate
Span = tuple[int, int]  # a plot's top and bottom y
PALETTE = (
    "#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed",
    "#0891b2", "#65a30d", "#dc2626", "#4b5563", "#ca8a04",
)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Picture:
    """What the chart shows: the episode so far (``day`` is today's index in ``close``)."""

    tickers: tuple[str, ...]
    dates: tuple[str, ...]
    close: np.ndarray  # (days, stocks), the whole episode
    day: int
    values: list[float]  # portfolio value per day up to today
    initial_amount: float
    holdings: np.ndarray
    trades: list[tuple[int, int, int]]  # (day, stock, signed shares)


def draw(p: Picture) -> str:
    """The SVG document of ``p``."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="13">',
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        _title(p),
        *_price_plot(p),
        *_value_plot(p),
        *_legend(p),
        "</svg>",
    ]
    return "".join(parts)


def _text(x: float, y: float, text: str, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{html.escape(v)}"' for k, v in attrs.items())
    return f'<text x="{x:.1f}" y="{y:.1f}"{extra}>{html.escape(text)}</text>'


def _label(ticker: str) -> str:
    return ticker if len(ticker) <= MAX_LABEL else ticker[: MAX_LABEL - 1] + "…"


def _title(p: Picture) -> str:
    value = p.values[-1]
    change = 100 * (value / p.initial_amount - 1)
    text = (
        f"{p.dates[p.day]} · day {p.day + 1} of {len(p.dates)} · "
        f"portfolio ${value:,.2f} ({change:+.2f}%)"
    )
    return _text(LEFT, 24, text, font_size="15", font_weight="bold", fill="#0f172a")


def _x(day: float, days: int) -> float:
    return LEFT + (RIGHT - LEFT) * day / max(days - 1, 1)


def _scale(lo: float, hi: float, span: tuple[int, int]) -> Scale:
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    top, bottom = span
    return lambda v: bottom - (bottom - top) * (v - lo) / (hi - lo)


def _points(days: int) -> np.ndarray:
    """Day indices to draw (every day, or an even subsample keeping the last)."""
    if days <= MAX_POINTS:
        return np.arange(days)
    return np.unique(np.append(np.linspace(0, days - 1, MAX_POINTS).astype(int), days - 1))


def _polyline(xs: list[float], ys: list[float], colour: str, width: float = 1.6) -> str:
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
    return (
        f'<polyline points="{points}" fill="none" stroke="{colour}" '
        f'stroke-width="{width}" stroke-linejoin="round"/>'
    )


def _frame(span: Span, y_of: Scale, lo: float, hi: float, fmt: str, title: str) -> list[str]:
    top, bottom = span
    out = [
        f'<rect x="{LEFT}" y="{top}" width="{RIGHT - LEFT}" height="{bottom - top}" '
        f'fill="#f8fafc" stroke="#cbd5e1"/>',
        _text(LEFT, top - 8, title, fill="#475569"),
    ]
    for v in np.linspace(lo, hi, 5):
        y = y_of(v)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{RIGHT}" y2="{y:.1f}" stroke="#e2e8f0"/>')
        out.append(_text(LEFT - 6, y + 4, format(v, fmt), text_anchor="end", fill="#64748b"))
    return out


def _price_plot(p: Picture) -> list[str]:
    days, shown = len(p.dates), min(len(p.tickers), MAX_LINES)
    change = 100 * (p.close[: p.day + 1, :shown] / p.close[0, :shown] - 1)
    lo, hi = float(change.min()), float(change.max())
    y_of = _scale(lo, hi, PRICE_Y)
    title = "price change since day 1 (%)"
    if shown < len(p.tickers):
        title += f"; first {shown} of {len(p.tickers)} stocks drawn"
    out = _frame(PRICE_Y, y_of, lo, hi, "+.1f", title)
    index = _points(p.day + 1)
    xs = [_x(d, days) for d in index]
    for s in range(shown):
        out.append(_polyline(xs, [y_of(v) for v in change[index, s]], PALETTE[s % len(PALETTE)]))
    for day, stock, shares in p.trades[-MAX_MARKS:]:
        if stock < shown:
            out.append(_mark(_x(day, days), y_of(change[day, stock]), shares > 0))
    return out


def _mark(x: float, y: float, bought: bool) -> str:
    """A trade's triangle: green pointing up for a buy, red pointing down for a sale."""
    tip, base, colour = (y - 6, y, "#16a34a") if bought else (y + 6, y, "#dc2626")
    points = f"{x:.1f},{tip:.1f} {x - 3.5:.1f},{base:.1f} {x + 3.5:.1f},{base:.1f}"
    return f'<polygon points="{points}" fill="{colour}" fill-opacity="0.85"/>'


def _value_plot(p: Picture) -> list[str]:
    days = len(p.dates)
    values = np.asarray(p.values)
    lo = float(min(values.min(), p.initial_amount))
    hi = float(max(values.max(), p.initial_amount))
    y_of = _scale(lo, hi, VALUE_Y)
    out = _frame(VALUE_Y, y_of, lo, hi, ",.0f", "portfolio value ($); dashed: initial amount")
    base = y_of(p.initial_amount)
    out.append(
        f'<line x1="{LEFT}" y1="{base:.1f}" x2="{RIGHT}" y2="{base:.1f}" stroke="#94a3b8" '
        f'stroke-dasharray="5 4"/>'
    )
    index = _points(len(values))
    colour = "#16a34a" if values[-1] >= p.initial_amount else "#dc2626"
    xs = [_x(d, days) for d in index]
    out.append(_polyline(xs, [y_of(v) for v in values[index]], colour, 2.2))
    out.append(_text(LEFT, HEIGHT - 10, p.dates[0], fill="#64748b"))
    out.append(_text(RIGHT, HEIGHT - 10, p.dates[-1], text_anchor="end", fill="#64748b"))
    return out


def _legend(p: Picture) -> list[str]:
    x, out = RIGHT + 12, [_text(RIGHT + 12, PRICE_Y[0] - 8, "price · shares held", fill="#475569")]
    for s in range(min(len(p.tickers), MAX_LINES)):
        y = PRICE_Y[0] + 12 + 37 * s
        colour = PALETTE[s % len(PALETTE)]
        out.append(f'<rect x="{x}" y="{y - 10}" width="10" height="10" fill="{colour}"/>')
        out.append(_text(x + 15, y, _label(p.tickers[s]), fill="#0f172a", font_weight="bold"))
        text = f"{float(p.close[p.day, s]):,.2f} · {int(p.holdings[s])}"
        out.append(_text(x + 15, y + 16, text, fill="#334155", font_size="12"))
    return out
