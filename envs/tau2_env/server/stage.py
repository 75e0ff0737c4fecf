"""The stage: the episode's framing, the database's changes, and the conversation as a chat.

On top: domain, task and who plays which seat; what happens next or, once the call is over,
the reward broken into τ²-bench's components; in seat=user the customer's scenario. Then the
records the conversation has changed. Then the conversation, newest last: the customer's
messages (blue, right), the agent's (grey, left), and each tool call as a monospace line with
the start of its answer (red when refused). The policy is in the playground's Policy tab.
Everything is escaped text (the page's SVG sanitizer sees it again).
"""

from __future__ import annotations

import json
import textwrap
from typing import Any
from xml.sax.saxutils import escape

from tau2_env.server.scoring import Verdict

WIDTH = 560
PAD = 12
LINE = 18
CHARS = 54  # characters per bubble line at 14px
PANEL_CHARS = 66  # at 13px, across the drawing
MAX_BUBBLE_LINES = 8
MAX_ITEMS = 10  # newest messages and tool lines drawn
MAX_RECORDS = 3
COLOURS = {"user": ("#2563eb", "#ffffff"), "assistant": ("#e2e8f0", "#0f172a")}


def draw(
    *,
    domain: str,
    task_id: str,
    seat: str,
    user_kind: str,
    transcript: list[dict[str, Any]],
    status: str,
    scenario: str,
    records: list[tuple[str, str, Any]],
    verdict: Verdict | None,
    end_reason: str,
    policy: str,
) -> str:
    """The whole stage: the framing on top, the database's changes, then the conversation."""
    out: list[str] = []
    y = _header(out, domain, task_id, seat, user_kind)
    if verdict is not None:
        y = _reward(out, y, verdict, end_reason)
    elif status:
        y = _block(out, y, "", status, 3, fill="#1e40af")
    if scenario:
        y = _block(out, y, "Your scenario (you are the customer)", scenario, 7)
    y = _records(out, y, records)
    out.append(f'<line x1="{PAD}" y1="{y}" x2="{WIDTH - PAD}" y2="{y}" stroke="#cbd5e1"/>')
    chat, y = _chat(transcript, seat, y + 8)
    out.append(chat)
    height = max(y + 10, 300)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="system-ui, sans-serif" font-size="14">'
        f'<rect width="100%" height="100%" fill="#ffffff"/>{"".join(out)}</svg>'
    )


def _header(out: list[str], domain: str, task_id: str, seat: str, user_kind: str) -> int:
    out.append(f'<rect x="0" y="0" width="{WIDTH}" height="50" fill="#f1f5f9"/>')
    title = f"τ²-bench · {domain or '—'} · task {task_id or '—'}"
    out.append(_text(PAD, 22, title, size=16, weight="bold"))
    if seat == "user":
        who = "you: the customer · agent: scripted (the task's reference solution)"
    else:
        who = f"you: the agent · customer: simulated ({user_kind or '—'})"
    out.append(_text(PAD, 41, who, size=12, fill="#475569"))
    return 68


# -- the conversation -----------------------------------------------------------------------


def _chat(transcript: list[dict[str, Any]], seat: str, y: int) -> tuple[str, int]:
    parts: list[str] = []
    shown = transcript[-MAX_ITEMS:]
    if len(transcript) > len(shown):
        earlier = f"{len(transcript) - len(shown)} earlier messages and tool calls"
        parts.append(_caption(WIDTH / 2, y + 6, earlier, "middle"))
        y += 18
    if not transcript:
        parts.append(_caption(WIDTH / 2, y + 20, "No conversation yet: press Reset.", "middle"))
        y += 40
    for message in shown:
        if message["role"] == "tool":
            markup, h = _tool_line(message, y)
        else:
            markup, h = _bubble(message, y, seat)
        parts.append(markup)
        y += h
    return "".join(parts), y


def _bubble(message: dict[str, Any], top: int, seat: str) -> tuple[str, int]:
    role = message["role"]
    fill, ink = COLOURS.get(role, COLOURS["assistant"])
    lines = _wrap(str(message.get("content", "")), CHARS, MAX_BUBBLE_LINES)
    width = min(WIDTH - 70, max(110, 20 + 7.6 * max(len(line) for line in lines)))
    right = role == "user"
    x = WIDTH - PAD - width if right else PAD
    who = "customer" if role == "user" else "agent"
    if (seat == "user") == (role == "user"):
        who += " (you)"
    label = _caption(x + width - 4 if right else x + 4, top + 10, who, "end" if right else "start")
    box_top = top + 15
    height = 12 + LINE * len(lines)
    text = "".join(
        f'<text x="{x + 11:.0f}" y="{box_top + 19 + i * LINE}" fill="{ink}">{escape(line)}</text>'
        for i, line in enumerate(lines)
    )
    rect = (
        f'<rect x="{x:.0f}" y="{box_top}" width="{width:.0f}" height="{height}" rx="12" '
        f'fill="{fill}"/>'
    )
    return label + rect + text, height + 22


def _tool_line(message: dict[str, Any], top: int) -> tuple[str, int]:
    failed = bool(message.get("error"))
    args = ", ".join(f"{k}={_short(v, 22)}" for k, v in (message.get("arguments") or {}).items())
    call = f"{'✗' if failed else '⚙'} {message.get('name')}({args})"
    answer = "  → " + _short(str(message.get("content", "")), 68)
    colour = "#b91c1c" if failed else "#475569"
    lines = [*_wrap(call, 72, 2), answer]
    text = "".join(
        f'<text x="{PAD + 12}" y="{top + 12 + i * 15}" font-family="monospace" '
        f'font-size="11.5" fill="{colour}">{escape(line)}</text>'
        for i, line in enumerate(lines)
    )
    bar = f'<rect x="{PAD + 2}" y="{top}" width="3" height="{15 * len(lines)}" fill="{colour}"/>'
    return bar + text, 15 * len(lines) + 10


# -- the framing ------------------------------------------------------------------------------


def _reward(out: list[str], y: int, verdict: Verdict, end_reason: str) -> int:
    won = verdict.reward >= 1.0
    colour = "#15803d" if won else "#b91c1c"
    parts = [f"{'✓' if s >= 1 else '✗'} {n} {s:g}" for n, s in verdict.components.items()]
    out.append(_text(PAD, y, f"Reward {verdict.reward:g}", size=18, weight="bold", fill=colour))
    out.append(_text(PAD + 110, y, "  ·  ".join(parts), size=13, fill=colour))
    y += 18
    notes = [f"Over: {end_reason}."] if end_reason else []
    notes += [f"{name}: not judged ({why})" for name, why in verdict.not_judged.items()]
    missing = verdict.details.get("not_communicated")
    if missing:
        notes.append("not said to the customer: " + ", ".join(map(str, missing)))
    for note in notes:
        for line in _wrap(note, PANEL_CHARS, 3):
            out.append(_text(PAD, y, line, size=12, fill="#475569"))
            y += 15
    return y + 10


def _records(out: list[str], y: int, records: list[tuple[str, str, Any]]) -> int:
    out.append(_text(PAD, y + 4, "Database: records changed", size=13, weight="bold"))
    if not records:
        out.append(_text(PAD + 205, y + 4, "none yet (as shipped)", size=12, fill="#64748b"))
        return y + 18
    y += 20
    for table, key, record in records[:MAX_RECORDS]:
        line = _printable(_short(f"{table}/{key} {_summary(record)}", PANEL_CHARS + 6))
        out.append(_text(PAD + 8, y, line, size=11, fill="#334155", mono=True))
        y += 15
    if len(records) > MAX_RECORDS:
        out.append(_text(PAD + 8, y, f"… and {len(records) - MAX_RECORDS} more", size=12))
        y += 15
    return y + 4


def _summary(record: Any) -> str:
    if record is None:
        return "(deleted)"
    if isinstance(record, dict):
        keep = ("status", "cabin", "flights", "total_baggages", "items", "address")
        picked = {k: record[k] for k in keep if k in record}
        if isinstance(picked.get("flights"), list):
            picked["flights"] = [f.get("flight_number") for f in picked["flights"]]
        if isinstance(picked.get("items"), list):
            picked["items"] = [i.get("item_id") for i in picked["items"]]
        record = picked or record
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _block(
    out: list[str], y: int, title: str, body: str, max_lines: int, fill: str = "#0f172a"
) -> int:
    if title:
        out.append(_text(PAD, y + 4, title, size=13, weight="bold"))
        y += 20
    for line in _wrap(body, PANEL_CHARS, max_lines):
        out.append(_text(PAD, y + 2, line, size=13, fill=fill))
        y += 16
    return y + 8


# -- text helpers -----------------------------------------------------------------------------


def _text(
    x: float, y: float, text: str, *, size: float = 13, weight: str = "normal",
    fill: str = "#0f172a", mono: bool = False,
) -> str:  # fmt: skip
    family = ' font-family="monospace"' if mono else ""
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" font-weight="{weight}" '
        f'fill="{fill}"{family}>{escape(_printable(text))}</text>'
    )


def _caption(x: float, y: float, text: str, anchor: str) -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="11" fill="#64748b" '
        f'text-anchor="{anchor}">{escape(_printable(text))}</text>'
    )


def _short(value: Any, n: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _wrap(content: str, width: int, max_lines: int) -> list[str]:
    lines: list[str] = []
    for paragraph in content.splitlines() or [""]:
        lines += textwrap.wrap(paragraph, width) or [""]
    lines = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])] or [""]
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], lines[max_lines - 1][: width - 1] + "…"]
    return [_printable(line) for line in lines]


def _printable(line: str) -> str:
    return "".join(c if c.isprintable() else " " for c in line)
