"""The playground's picture: Alice's working week as an SVG, redrawn after every tool call.

Monday to Friday, 08:00 to 18:00 UTC. Alice's events fill each day's column (clashing events
side by side, outlined in red); three narrow lanes at the right of each day show when Bob,
Carol and Dave are busy (their free/busy, no details). All text is escaped.
"""

from __future__ import annotations

import html
import textwrap
from datetime import datetime

from calendar_env.server.store import CalendarStore, EventRow
from calendar_env.server.timeutil import NOW, day_at
from calendar_env.server.world import ACTING_USER, BY_ID, PERSONAL

W, H = 760, 640
LEFT, TOP, BOTTOM = 46, 150, 612
FIRST_H, LAST_H = 8, 18
DAYS = ("Mon 5", "Tue 6", "Wed 7", "Thu 8", "Fri 9")
COL_W = (W - LEFT - 12) / 5
LANE_W, LANES = 7, ("bob", "carol", "dave")
COLORS = {ACTING_USER.primary: ("#dbe7ff", "#3b6fd8"), PERSONAL: ("#dcf3e4", "#2f9a5b")}
OTHER = ("#ece6fb", "#7c5cc4")
LANE_COLORS = {"bob": "#f0a35e", "carol": "#d9679b", "dave": "#5fb3b3"}


def week_svg(store: CalendarStore, prompt: str, score: float) -> str:
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" '
        f'height="{H}" font-family="system-ui, sans-serif">',
        f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
        *_header(prompt, score),
        *_grid(),
        *_lanes(store),
        *_events(store),
        *_now_line(),
        *_footer(store),
        "</svg>",
    ]
    return "".join(parts)


def _y(moment: datetime, day: int) -> float:
    hours = (moment - day_at(day, 0)).total_seconds() / 3600
    hours = min(max(hours, FIRST_H), LAST_H)
    return TOP + (hours - FIRST_H) / (LAST_H - FIRST_H) * (BOTTOM - TOP)


def _text(x: float, y: float, text: str, size: int = 12, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{html.escape(v)}"' for k, v in attrs.items())
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}"{extra}>{html.escape(text)}</text>'


def _header(prompt: str, score: float) -> list[str]:
    out = [
        _text(
            12,
            28,
            "Alice Chen · week of 5 – 9 Oct 2026 (UTC)",
            17,
            font_weight="600",
            fill="#1f2937",
        ),
        f'<rect x="{W - 130}" y="10" width="118" height="28" rx="14" '
        f'fill="{"#16a34a" if score >= 1 else "#eef2f7"}"/>',
        _text(
            W - 71,
            29,
            f"score {score:.2f}",
            14,
            text_anchor="middle",
            font_weight="600",
            fill="#ffffff" if score >= 1 else "#334155",
        ),
    ]
    for i, line in enumerate(textwrap.wrap(prompt, 112)[:4]):
        out.append(_text(12, 54 + 16 * i, line, 12, fill="#475569"))
    legend = [
        ("Alice", COLORS[ACTING_USER.primary][1]),
        ("Personal", COLORS[PERSONAL][1]),
        ("Alice invited", OTHER[1]),
        *((f"{BY_ID[u].name.split()[0]} busy", LANE_COLORS[u]) for u in LANES),
    ]
    for i, (label, color) in enumerate(legend):
        x = 12 + i * 106
        out.append(f'<rect x="{x}" y="{TOP - 36}" width="11" height="11" rx="2" fill="{color}"/>')
        out.append(_text(x + 16, TOP - 26, label, 12, fill="#334155"))
    return out


def _grid() -> list[str]:
    out = []
    for i, name in enumerate(DAYS):
        x = LEFT + i * COL_W
        fill = "#f8fafc" if i != 1 else "#fffbea"  # today is Tuesday
        out.append(
            f'<rect x="{x:.1f}" y="{TOP}" width="{COL_W:.1f}" height="{BOTTOM - TOP}" '
            f'fill="{fill}" stroke="#e2e8f0"/>'
        )
        out.append(
            _text(
                x + COL_W / 2,
                TOP - 6,
                name + (" (today)" if i == 1 else ""),
                12,
                text_anchor="middle",
                font_weight="600",
                fill="#334155",
            )
        )
    for hour in range(FIRST_H, LAST_H + 1):
        y = TOP + (hour - FIRST_H) / (LAST_H - FIRST_H) * (BOTTOM - TOP)
        out.append(f'<line x1="{LEFT}" x2="{W - 12}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e2e8f0"/>')
        out.append(_text(LEFT - 6, y + 4, f"{hour:02d}:00", 11, text_anchor="end", fill="#64748b"))
    return out


def _lanes(store: CalendarStore) -> list[str]:
    out = []
    for day in range(5):
        for j, user in enumerate(LANES):
            x = LEFT + (day + 1) * COL_W - (len(LANES) - j) * (LANE_W + 1) - 2
            calendar = store.resolve_calendar(BY_ID[user].primary)
            for event in store.busy(calendar, day_at(day, FIRST_H), day_at(day, LAST_H)):
                y0, y1 = _y(event.start_dt, day), _y(event.end_dt, day)
                out.append(
                    f'<rect x="{x:.1f}" y="{y0:.1f}" width="{LANE_W}" '
                    f'height="{max(y1 - y0, 2):.1f}" rx="2" fill="{LANE_COLORS[user]}" '
                    'opacity="0.85"/>'
                )
    return out


def _alice(store: CalendarStore, day: int) -> list[EventRow]:
    low, high = day_at(day, FIRST_H), day_at(day, LAST_H)
    rows = store.busy(store.resolve_calendar(ACTING_USER.primary), low, high)
    rows += store.events(PERSONAL, low, high)
    return sorted({e.id: e for e in rows}.values(), key=lambda e: (e.start, e.end, e.id))


def _events(store: CalendarStore) -> list[str]:
    out = []
    width = COL_W - len(LANES) * (LANE_W + 1) - 8
    for day in range(5):
        rows = _alice(store, day)
        lane_of, lanes = _assign_lanes(rows)
        for event in rows:
            clash = any(
                o.id != event.id and o.start_dt < event.end_dt and event.start_dt < o.end_dt
                for o in rows
            )
            share = width / lanes[event.id]
            x = LEFT + day * COL_W + 3 + lane_of[event.id] * share
            out.append(_box(event, x, share - 2, day, clash))
    return out


def _assign_lanes(rows: list[EventRow]) -> tuple[dict[str, int], dict[str, int]]:
    """Side-by-side lanes for overlapping events: lane index and lane count of its group."""
    lane_of: dict[str, int] = {}
    group: list[EventRow] = []
    counts: dict[str, int] = {}
    ends: list[datetime] = []

    def close_group() -> None:
        for member in group:
            counts[member.id] = max(1, len(ends))

    for event in rows:
        if group and all(g.end_dt <= event.start_dt for g in group):
            close_group()
            group, ends = [], []
        free = [i for i, end in enumerate(ends) if end <= event.start_dt]
        lane = free[0] if free else len(ends)
        if lane == len(ends):
            ends.append(event.end_dt)
        else:
            ends[lane] = event.end_dt
        lane_of[event.id] = lane
        group.append(event)
    close_group()
    return lane_of, counts


def _box(event: EventRow, x: float, w: float, day: int, clash: bool) -> str:
    y0, y1 = _y(event.start_dt, day), _y(event.end_dt, day)
    h = max(y1 - y0 - 1, 4)
    fill, edge = COLORS.get(event.calendar_id, OTHER)
    stroke = ' stroke="#dc2626" stroke-width="2"' if clash else f' stroke="{edge}"'
    chars = max(3, int(w / 6.4))
    title = event.summary if len(event.summary) <= chars else event.summary[: chars - 1] + "…"
    when = f"{event.start[11:16]}–{event.end[11:16]}"
    box = [
        f"<g><title>{html.escape(f'{event.summary} {when} ({event.id})')}</title>",
        f'<rect x="{x:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" '
        f'fill="{fill}"{stroke}/>',
        f'<rect x="{x:.1f}" y="{y0:.1f}" width="3" height="{h:.1f}" fill="{edge}"/>',
    ]
    if h >= 14:
        box.append(_text(x + 7, y0 + 12, title, 11, font_weight="600", fill="#1e293b"))
    if h >= 27:
        n = len(event.attendees)
        detail = when + (f" · {n} guest{'s' if n > 1 else ''}" if n else "")
        fits = int((w - 8) / 5.4)  # characters of 10 px text
        detail = detail if len(detail) <= fits else when
        box.append(_text(x + 7, y0 + 24, detail[:fits], 10, fill="#475569"))
    return "".join(box) + "</g>"


def _now_line() -> list[str]:
    y = _y(NOW, 1)
    x0 = LEFT + COL_W
    return [
        f'<line x1="{x0:.1f}" x2="{x0 + COL_W:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
        'stroke="#ef4444" stroke-width="2"/>'
    ]


def _footer(store: CalendarStore) -> list[str]:
    shown = {e.id for day in range(5) for e in _alice(store, day)}
    mine = [e for e in store.all_events() if e.calendar_id in (ACTING_USER.primary, PERSONAL)]
    hidden = [e for e in mine if e.id not in shown]
    note = f"{len(mine)} events on Alice's calendars"
    if hidden:
        note += f" · {len(hidden)} outside this view (weekend, next week, before 08:00/after 18:00)"
    return [_text(LEFT, H - 10, note, 11, fill="#64748b")]
