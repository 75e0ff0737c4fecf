"""The playground page's header: the env's emoji, title, version, how-to-play, legend and tags
(the Gradio page and the fast shell draw the same one)."""

from __future__ import annotations

import html
import re
from typing import Any

from openenv.server.context import ServerContext
from openenv.validation.verdict import verdict_for_class


def header_html(ctx: ServerContext) -> str:
    """The page header: emoji, title, version, the env's how-to-play (its description when it
    declares none), its legend, and the tags."""
    m = ctx.manifest
    tags = "".join(f'<span class="oe-tag">{html.escape(str(t))}</span>' for t in m.tags)
    shipped = verdict_for_class(ctx.env_cls)
    if shipped is not None:
        tags = (
            f'<span class="oe-tag oe-verdict oe-verdict-{shipped.verdict}" '
            f'title="{html.escape(shipped.title)}">{html.escape(shipped.label)}</span>' + tags
        )
    version = f" <small>v{html.escape(m.version)}</small>" if m.version else ""
    how = str(getattr(ctx.env_cls, "how_to_play", "") or "")
    line = (
        f'<p class="oe-howto" title="{html.escape(m.description)}">{html.escape(how)}</p>'
        if how
        else f"<p>{html.escape(m.description)}</p>"
    )
    return (
        f'<div class="oe-header"><span class="oe-emoji">{html.escape(m.emoji)}</span><div>'
        f"<h1>{html.escape(m.display_title)}{version}</h1>{line}"
        f"{legend_html(getattr(ctx.env_cls, 'legend', None))}</div>"
        f'<div class="oe-tags">{tags}<a class="oe-tag oe-watch-link" href="watch" '
        'title="Every live session of this server (web tabs, notebooks, trainers), to watch">'
        "👁 live sessions</a></div></div>"
    )


_COLOUR = re.compile(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?")


def legend_html(legend: Any) -> str:
    """An env's legend: a colour swatch for a ``#rrggbb`` key, else the glyph itself."""
    if not isinstance(legend, dict) or not legend:
        return ""
    items = []
    for key, meaning in list(legend.items())[:12]:
        key = str(key)
        mark = (
            f'<i class="oe-swatch" style="background:{key}"></i>'
            if _COLOUR.fullmatch(key)
            else f"<b>{html.escape(key[:8])}</b>"
        )
        items.append(f'<span class="oe-legend-item">{mark} {html.escape(str(meaning)[:80])}</span>')
    return f'<div class="oe-legend oe-head-legend" aria-label="legend">{"".join(items)}</div>'
