"""The playground's picture of a FinQA episode, as an SVG: the question, the company's tables
(the one last looked at drawn in full), the last query with its rows, the calculator's last
results and the submitted answer. All text is escaped and clipped."""

from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass, field
from typing import Any

from finqa_env.server.dataset import FinqaData, Question, Table

W, H = 600, 900  # drawn about 470 px wide on the playground's stage: sizes are for that
GRID_X = 14
MAX_GRID_ROWS = 12
MAX_RESULT_ROWS = 5
INK, MUTED, ACCENT, RULE = "#1d2433", "#5b6577", "#2f6fdb", "#d5dae3"


@dataclass
class Stage:
    """What the picture shows besides the question: the table in view, the last query."""

    table: str | None = None
    query: str | None = None
    result: dict[str, Any] | None = None
    calculations: list[tuple[str, float]] = field(default_factory=list)


def stage_svg(
    data: FinqaData, question: Question, stage: Stage, submitted: str | None, verdict: str | None
) -> str:
    tables = data.companies[question.company]
    parts, y = _header(data, question)
    y = _table_list(parts, tables, stage.table, y)
    if stage.table in tables:
        y = _grid(parts, tables[stage.table], y)
    y = _query(parts, stage, y + 14)
    y = _calculations(parts, stage, y + 10)
    height = min(H, y + 56)
    parts += _answer(submitted, verdict, height)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" width="{W}" '
        f'height="{height}" font-family="system-ui, sans-serif">'
        f'<rect width="{W}" height="{height}" fill="#ffffff"/>'
    )
    return head + "".join(parts) + "</svg>"


def _text(x: float, y: float, text: Any, size: int = 13, fill: str = INK, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{html.escape(v)}"' for k, v in attrs.items())
    body = html.escape(str(text))
    return f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" fill="{fill}"{extra}>{body}</text>'


def _clip(text: Any, width: int) -> str:
    text = str(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _header(data: FinqaData, question: Question) -> tuple[list[str], int]:
    lines = textwrap.wrap(question.question, 58)[:5]
    bottom = 58 + 21 * len(lines)
    out = [
        f'<rect x="0" y="0" width="{W}" height="{bottom}" fill="#f3f6fb"/>',
        _text(
            14, 24, _clip(data.display_name(question.company), 44), 16, ACCENT, font_weight="600"
        ),
        _text(W - 14, 24, f"question {question.id}", 13, MUTED, text_anchor="end"),
    ]
    for i, line in enumerate(lines):
        out.append(_text(14, 52 + 21 * i, line, 17, INK, font_weight="600"))
    out.append(_text(W - 14, bottom - 8, _clip(data.source, 40), 11, MUTED, text_anchor="end"))
    return out, bottom


def _table_list(parts: list[str], tables: dict[str, Table], current: str | None, y: int) -> int:
    parts.append(_text(14, y + 24, f"Tables ({len(tables)})", 14, MUTED, font_weight="600"))
    y += 30
    for name in list(tables)[:8]:
        y += 22
        if name == current:
            parts.append(f'<rect x="8" y="{y - 16}" width="{W - 16}" height="21" fill="#e3ecfb"/>')
        mark = "▸ " if name == current else "· "
        parts.append(_text(14, y, mark + _clip(name, 66), 13, INK if name == current else MUTED))
    if len(tables) > 8:
        y += 20
        parts.append(_text(14, y, f"… and {len(tables) - 8} more (get_descriptions)", 12, MUTED))
    return y + 26


def _grid(parts: list[str], table: Table, y: int) -> int:
    parts.append(_text(GRID_X, y + 4, _clip(table.description, 80), 13, MUTED))
    columns = table.columns[:5]
    width = (W - GRID_X - 16) / max(len(columns), 1)
    top = y + 14
    parts.append(f'<rect x="{GRID_X}" y="{top}" width="{W - GRID_X - 16}" height="22" '
                 f'fill="#eef1f6"/>')  # fmt: skip
    chars = max(6, int(width / 8.2))
    for c, column in enumerate(columns):
        x = GRID_X + 6 + c * width
        parts.append(_text(x, top + 15, _clip(column, chars), 13, INK, font_weight="600"))
    rows = table.rows[:MAX_GRID_ROWS]
    for r, row in enumerate(rows):
        ry = top + 22 + 21 * r
        parts.append(f'<line x1="{GRID_X}" y1="{ry}" x2="{W - 16}" y2="{ry}" stroke="{RULE}"/>')
        for c, value in enumerate(row[: len(columns)]):
            x = GRID_X + 6 + c * width
            parts.append(_text(x, ry + 15, _clip(_fmt(value), chars), 14))
    end = top + 22 + 21 * len(rows)
    hidden = [f"{len(table.rows) - MAX_GRID_ROWS} more rows"] if len(rows) < len(table.rows) else []
    if len(columns) < len(table.columns):
        hidden.append(f"{len(table.columns) - len(columns)} more columns")
    if hidden:
        more = f"… {' and '.join(hidden)}: get_table_info and sql_query show them"
        parts.append(_text(GRID_X, end + 16, more, 12, MUTED))
        end += 20
    return end


def _query(parts: list[str], stage: Stage, y: int) -> int:
    if stage.query is None or stage.result is None:
        hint = "sql_query: SELECT <columns> FROM data WHERE ..."
        parts.append(_text(GRID_X, y + 6, hint, 13, MUTED))
        return y + 14
    parts.append(_text(GRID_X, y + 6, "Last query: " + _clip(stage.query, 62), 13, INK,
                       font_family="ui-monospace, monospace"))  # fmt: skip
    rows = stage.result["rows"]
    line = ", ".join(stage.result["columns"])
    parts.append(_text(GRID_X + 12, y + 24, _clip(line, 70), 13, MUTED))
    for i, row in enumerate(rows[:MAX_RESULT_ROWS]):
        cells = " | ".join(_fmt(v) for v in row)
        parts.append(_text(GRID_X + 12, y + 42 + 18 * i, _clip(cells, 70), 14, INK))
    shown = min(len(rows), MAX_RESULT_ROWS)
    if not rows:
        parts.append(_text(GRID_X + 12, y + 42, "(no rows)", 12, MUTED))
        shown = 1
    return y + 30 + 18 * shown


def _calculations(parts: list[str], stage: Stage, y: int) -> int:
    for i, (expression, value) in enumerate(stage.calculations[-3:]):
        parts.append(_text(GRID_X, y + 18 * i, f"= {_clip(expression, 44)}  →  {_fmt(value)}",
                           14, INK, font_family="ui-monospace, monospace"))  # fmt: skip
    return y + 18 * len(stage.calculations[-3:])


def _answer(submitted: str | None, verdict: str | None, height: int) -> list[str]:
    y = height - 16
    out = [f'<line x1="0" y1="{y - 22}" x2="{W}" y2="{y - 22}" stroke="{RULE}"/>']
    if submitted is None:
        return [*out, _text(14, y, "No answer submitted yet (submit_answer).", 14, MUTED)]
    good = verdict is not None and verdict.startswith("correct")
    color = "#1f8a4c" if good else "#c0392b"
    text = f"Answer submitted: {_clip(submitted, 24)} — {verdict}"
    return [*out, _text(14, y, text, 15, color, font_weight="600")]


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return "" if value is None else str(value)
