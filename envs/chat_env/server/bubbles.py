"""The playground's view of a conversation: chat bubbles as an SVG (escaped text only)."""

from __future__ import annotations

import textwrap
from xml.sax.saxutils import escape

WIDTH = 560
BUBBLE = 400  # widest bubble
LINE = 19
CHARS = 48  # characters per line at 14px in BUBBLE pixels
MAX_LINES = 14  # per message; the rest is cut with an ellipsis
MAX_MESSAGES = 24  # the most recent ones
STYLE = {  # role: (fill, text colour, side)
    "system": ("#f1f5f9", "#475569", "centre"),
    "user": ("#2563eb", "#ffffff", "right"),
    "assistant": ("#e2e8f0", "#0f172a", "left"),
}


def bubbles(messages: list[dict[str, str]], token_counts: list[int]) -> str:
    """One bubble per message (system centred, user right, assistant left), newest last."""
    shown = list(zip(messages, token_counts, strict=False))[-MAX_MESSAGES:]
    parts: list[str] = []
    y = 16
    if len(messages) > MAX_MESSAGES:
        earlier = f"{len(messages) - MAX_MESSAGES} earlier messages"
        parts.append(_caption(WIDTH / 2, y + 4, earlier, "middle"))
        y += 22
    if not messages:
        parts.append(_caption(WIDTH / 2, y + 20, "No messages yet: send one below.", "middle"))
        y += 40
    for message, count in shown:
        height, markup = _bubble(message, count, y)
        parts.append(markup)
        y += height + 14
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y + 6}" '
        f'viewBox="0 0 {WIDTH} {y + 6}" font-family="system-ui, sans-serif" font-size="14">'
        f'<rect width="100%" height="100%" fill="#ffffff"/>{"".join(parts)}</svg>'
    )


def _bubble(message: dict[str, str], count: int, top: int) -> tuple[int, str]:
    role = str(message.get("role", "assistant"))
    fill, ink, side = STYLE.get(role, STYLE["assistant"])
    lines = _wrap(str(message.get("content", "")))
    width = min(BUBBLE, max(120, 16 + 7.6 * max(len(line) for line in lines)))
    x = {"left": 16, "right": WIDTH - 16 - width, "centre": (WIDTH - width) / 2}[side]
    label_x, anchor = {"left": (x + 4, "start"), "right": (x + width - 4, "end")}.get(
        side, (WIDTH / 2, "middle")
    )
    label = _caption(label_x, top + 12, f"{role} · {count} tokens", anchor)
    box_top = top + 18
    height = 14 + LINE * len(lines)
    text = "".join(
        f'<text x="{x + 12:.0f}" y="{box_top + 22 + i * LINE}" fill="{ink}">{escape(line)}</text>'
        for i, line in enumerate(lines)
    )
    rect = (
        f'<rect x="{x:.0f}" y="{box_top}" width="{width:.0f}" height="{height}" rx="14" '
        f'fill="{fill}"/>'
    )
    return height + 18, label + rect + text


def _wrap(content: str) -> list[str]:
    lines: list[str] = []
    for paragraph in content.splitlines() or [""]:
        lines += textwrap.wrap(paragraph, CHARS, replace_whitespace=False) or [""]
    if len(lines) > MAX_LINES:
        lines = [*lines[: MAX_LINES - 1], lines[MAX_LINES - 1][: CHARS - 1] + "…"]
    return [_printable(line.replace("\t", "    ")) for line in lines] or [""]


def _printable(line: str) -> str:
    """Control characters are not allowed in XML, even escaped: shown as U+FFFD."""
    return "".join(c if c.isprintable() else "\ufffd" for c in line)


def _caption(x: float, y: float, text: str, anchor: str) -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" fill="#64748b" font-size="11" '
        f'text-anchor="{anchor}">{escape(text)}</text>'
    )
