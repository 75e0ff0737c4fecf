"""The playground's picture of an AWM episode, as an SVG: the scenario and its task, every table
of the database as it is now (rows changed since the start marked), the last tool call and the
verifier's verdict. All text is escaped and clipped."""

from __future__ import annotations

import html
import textwrap
from typing import Any

from agent_world_model_env.server.generator import Scenario, Task
from agent_world_model_env.server.verifier import Verdict

W = 560
INK, MUTED, GOOD, BAD = "#1d2433", "#5b6577", "#1f7a3a", "#b3261e"
RULE, PAPER, HEAD, NEW = "#d5dae3", "#f6f8fb", "#e8edf5", "#fff3c4"
MAX_ROWS = 6
MAX_COLUMNS = 6
ROW_H = 18


def stage_svg(
    scenario: Scenario,
    task_idx: int,
    task: Task,
    snap: dict[str, dict[int, dict[str, Any]]],
    initial: dict[str, dict[int, dict[str, Any]]],
    last: dict[str, Any] | None,
    verdict: Verdict | None,
) -> str:
    rows: list[str] = []
    rows.append(_text(14, 24, f"Scenario {scenario.name}", 16, INK, "700"))
    rows.append(_text(14, 42, _clip(scenario.spec.description, 80), 12, MUTED))
    y = 52
    lines = textwrap.wrap(f"Task {task_idx}: {task.prompt}", 72)[:3]
    rows.append(f'<rect x="10" y="{y}" width="{W - 20}" height="{12 + 17 * len(lines)}" rx="6" '
                f'fill="{PAPER}" stroke="{RULE}"/>')  # fmt: skip
    for i, line in enumerate(lines):
        rows.append(_text(18, y + 19 + 17 * i, line, 13, INK, "600"))
    y += 22 + 17 * len(lines)
    for table in scenario.spec.tables:
        before = initial.get(table.name, {})
        columns = list(table.columns) if table.key in table.columns else ["rowid", *table.columns]
        y = _table(rows, table.name, columns[:MAX_COLUMNS], snap.get(table.name, {}), before, y)
    y = _last_call(rows, last, y)
    y = _verdict(rows, verdict, y)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {y + 8}" width="{W}" '
        f'height="{y + 8}" font-family="system-ui, sans-serif">'
        f'<rect width="{W}" height="{y + 8}" fill="#ffffff"/>' + "".join(rows) + "</svg>"
    )


def _text(x: float, y: float, text: Any, size: int = 12, fill: str = INK, weight: str = "") -> str:
    bold = f' font-weight="{weight}"' if weight else ""
    body = html.escape(str(text))
    return f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" fill="{fill}"{bold}>{body}</text>'


def _clip(text: Any, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table(rows: list[str], name: str, columns: list[str], data: dict, before: dict, y: int) -> int:
    """The table's first rows; a row added or changed since the start on a yellow band."""
    shown = list(data.items())[:MAX_ROWS]
    width = (W - 20) / len(columns)
    rows.append(_text(14, y + 14, f"{name} ({len(data)} rows)", 12, MUTED, "700"))
    y += 20
    rows.append(f'<rect x="10" y="{y}" width="{W - 20}" height="{ROW_H}" fill="{HEAD}"/>')
    for c, col in enumerate(columns):
        rows.append(_text(14 + c * width, y + 13, col, 11, INK, "700"))
    y += ROW_H
    chars = max(4, int(width / 7))
    for key, row in shown:
        if before.get(key) != row:
            rows.append(f'<rect x="10" y="{y}" width="{W - 20}" height="{ROW_H}" fill="{NEW}"/>')
        for c, col in enumerate(columns):
            rows.append(_text(14 + c * width, y + 13, _clip(row.get(col), chars), 12))
        rows.append(f'<line x1="10" y1="{y + ROW_H}" x2="{W - 10}" y2="{y + ROW_H}" '
                    f'stroke="{RULE}"/>')  # fmt: skip
        y += ROW_H
    if len(data) > MAX_ROWS:
        rows.append(_text(14, y + 13, f"… {len(data) - MAX_ROWS} more", 11, MUTED))
        y += ROW_H
    gone = [row for key, row in before.items() if key not in data]
    for row in gone[:2]:
        shown_row = ", ".join(f"{k} {v}" for k, v in row.items())
        rows.append(_text(14, y + 13, _clip(f"✗ deleted: {shown_row}", 84), 11, BAD))
        y += ROW_H
    if len(gone) > 2:
        rows.append(_text(14, y + 13, f"✗ {len(gone) - 2} more deleted", 11, BAD))
        y += ROW_H
    return y + 4


def _last_call(rows: list[str], last: dict[str, Any] | None, y: int) -> int:
    if last is None:
        rows.append(_text(14, y + 16, "No tool called yet.", 12, MUTED))
        return y + 24
    args = ", ".join(f"{k}={v!r}" for k, v in (last["arguments"] or {}).items())
    colour = GOOD if last["ok"] else BAD
    mark = "✓" if last["ok"] else "✗"
    rows.append(_text(14, y + 16, _clip(f"{mark} {last['tool']}({args})", 78), 12, colour, "700"))
    if last["tool"] == "verify" and last["ok"]:
        return y + 24  # the verdict follows
    rows.append(_text(24, y + 33, _clip(f"→ {_humane(last['result'])}", 84), 11, MUTED))
    return y + 42


def _humane(value: Any) -> str:
    """A tool's result in words: a row as ``key value`` pairs, a list as its size and first row."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_humane(v)}" for k, v in value.items())
    if isinstance(value, list):
        head = f"{len(value)} row(s)"
        return f"{head}; first: {_humane(value[0])}" if value else head
    return str(value)


def _verdict(rows: list[str], verdict: Verdict | None, y: int) -> int:
    if verdict is None:
        rows.append(_text(14, y + 14, "Not verified yet: call verify when the task is done.",
                          12, MUTED))  # fmt: skip
        return y + 22
    if verdict.complete is None:
        colour, head = MUTED, "– not judged"
    elif verdict.complete:
        colour, head = GOOD, "✓ complete"
    else:
        colour, head = BAD, "✗ incomplete"
    rows.append(_text(14, y + 16, f"Verify ({verdict.mode}): {head}", 14, colour, "700"))
    for i, line in enumerate(textwrap.wrap(verdict.reason, 80)[:2]):
        rows.append(_text(24, y + 34 + 15 * i, line, 11, MUTED))
    return y + 40 + 15 * min(2, len(textwrap.wrap(verdict.reason, 80)))
