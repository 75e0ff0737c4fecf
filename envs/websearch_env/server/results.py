"""Search results as the agent reads them (text) and as a visitor sees them (an SVG page).

:func:`format_results` is the documented observation's ``content``: a ``Search results for:``
line, then each result numbered ``[i]`` with its title, ``URL:`` and up to 500 characters of
its text. :func:`results_svg` draws the same results as a search engine's results page (the
question, the search box, then title, address and snippet per result). All text is escaped.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Sequence

from websearch_env.models import WebContent

SNIPPET = 500
W = 600
DRAWN = 3  # results drawn on the stage (all of them are in the observation)
SENTENCE = re.compile(r"(?<=[.!?])\s+")
WORD = re.compile(r"[a-z0-9]{3,}")
INK, MUTED, LINK, ADDRESS, RULE = "#202124", "#5f6368", "#1a0dab", "#0d652d", "#dadce0"
PROVIDERS = {"offline": "offline corpus · BM25", "serper": "Google via Serper.dev"}


def format_results(query: str, results: Sequence[WebContent]) -> str:
    """The results as numbered text, each text cut at 500 characters."""
    lines = [f"Search results for: {query}", ""]
    for i, result in enumerate(results, 1):
        text = result.content[:SNIPPET] + ("..." if len(result.content) > SNIPPET else "")
        lines += [f"[{i}] {result.title}", f"    URL: {result.url or 'N/A'}", f"    {text}", ""]
    return "\n".join(lines)


def _text(x: float, y: float, text: str, size: int, fill: str, weight: str = "400") -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" fill="{fill}" '
        f'font-weight="{weight}">{html.escape(text)}</text>'
    )


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def results_svg(
    question: str,
    query: str,
    results: Sequence[WebContent],
    provider: str,
    error: str | None,
    footer: tuple[str, str],
) -> str:
    """The results page; ``footer`` is (text, colour) for the answer line."""
    lines = textwrap.wrap(question, 56)[:4]
    top = 40 + 22 * len(lines)
    parts = [f'<rect x="0" y="0" width="{W}" height="{top}" fill="#f1f5fd"/>']
    parts.append(_text(16, 24, "Question", 13, MUTED, "600"))
    parts += [_text(16, 48 + 22 * i, line, 18, INK, "600") for i, line in enumerate(lines)]
    y = top + 18
    parts.append(
        f'<rect x="14" y="{y}" width="{W - 28}" height="40" rx="20" fill="#fff" '
        f'stroke="{RULE}" stroke-width="1.5"/>'
    )
    shown = _clip(query, 52) if query else "type a query in the box below the page"
    parts.append(_text(36, y + 26, "⌕  " + shown, 16, INK if query else MUTED))
    y += 66
    label = PROVIDERS.get(provider, provider)
    if error:
        for i, line in enumerate(textwrap.wrap(error, 64)[:4]):
            parts.append(_text(16, y + 20 * i, line, 14, "#c5221f", "600" if i == 0 else "400"))
        y += 20 * min(len(textwrap.wrap(error, 64)), 4) + 10
    elif query:
        count = f"{len(results)} result{'s' if len(results) != 1 else ''} · {label}"
        parts.append(_text(16, y, count, 13, MUTED))
        y += 14
        for result in results[:DRAWN]:
            y = _result(parts, result, query, y)
        if len(results) > DRAWN:
            more = f"+ {len(results) - DRAWN} more results in the observation (content)"
            parts.append(_text(16, y + 16, more, 13, MUTED))
            y += 20
        if not results:
            parts.append(_text(16, y + 20, "No results: try other words.", 15, MUTED))
            y += 30
    else:
        parts.append(_text(16, y, f"Searching: {label}", 13, MUTED))
    y += 26
    parts.append(f'<line x1="0" y1="{y}" x2="{W}" y2="{y}" stroke="{RULE}"/>')
    parts.append(_text(16, y + 28, _clip(footer[0], 64), 16, footer[1], "600"))
    height = y + 44
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" width="{W}" '
        f'height="{height}" font-family="arial, system-ui, sans-serif">'
        f'<rect width="{W}" height="{height}" fill="#ffffff"/>{"".join(parts)}</svg>'
    )


def snippet_for(content: str, query: str, width: int = 330) -> str:
    """The sentences of ``content`` that share most words with ``query``, in their order, cut
    to about ``width`` characters (a results page's snippet)."""
    sentences = [s for s in SENTENCE.split(content) if s.strip()]
    terms = set(WORD.findall(query.lower()))
    ranked = sorted(
        range(len(sentences)),
        key=lambda i: (-len(terms & set(WORD.findall(sentences[i].lower()))), i),
    )
    chosen: list[int] = ranked[:1]
    for i in ranked[1:]:
        if sum(len(sentences[j]) + 3 for j in [*chosen, i]) <= width:
            chosen.append(i)
    return " … ".join(sentences[i].strip() for i in sorted(chosen))


def _result(parts: list[str], result: WebContent, query: str, y: int) -> int:
    parts.append(_text(16, y + 20, _clip(result.url or "N/A", 70), 13, ADDRESS))
    parts.append(_text(16, y + 42, _clip(result.title, 54), 18, LINK))
    snippet = textwrap.wrap(snippet_for(result.content, query), 84)
    for i, line in enumerate(snippet[:4]):
        last = i == 3 and len(snippet) > 4
        parts.append(_text(16, y + 62 + 18 * i, line + (" …" if last else ""), 14, MUTED))
    return y + 62 + 18 * min(len(snippet), 4) + 4
