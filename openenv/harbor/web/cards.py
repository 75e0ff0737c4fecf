"""The Tasks tab's drawing: task cards (filtered by dataset, category, difficulty, tag and a
search), one task's page (what the agent receives, its files, the environment and verifier
settings) and the runs of a task.

Pure functions of the service's task cards and views to HTML; everything a task wrote is
escaped (its instruction is Markdown rendered without raw HTML).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from openenv.harbor.web.timeline import esc, reward_text, status_badge

ALL = "all"
MAX_CARDS = 200  # cards drawn at once; the others are counted (narrow the filters)
MAX_PREVIEW = 220


def task_key(split: str, index: int) -> str:
    """One task's key in the page (a card's ``data-pick``, the run card's choice)."""
    return json.dumps([split, int(index)])


def parse_task_key(key: Any) -> tuple[str, int] | None:
    """``(split, index)`` from :func:`task_key`'s text; None for anything else."""
    try:
        split, index = json.loads(str(key)[:1000])
    except (ValueError, TypeError):
        return None
    if not isinstance(split, str) or type(index) is not int or index < 0:
        return None
    return split, index


def facet_values(cards: list[dict[str, Any]], key: str) -> list[str]:
    """The values of ``key`` across ``cards`` (tags: every tag), sorted, ``ALL`` first."""
    found: set[str] = set()
    for card in cards:
        value = card.get(key)
        if key == "tags":
            found.update(str(t) for t in value or [])
        elif value not in (None, ""):
            found.add(str(value))
    return [ALL, *sorted(found)]


def filter_cards(
    cards: list[dict[str, Any]],
    query: str = "",
    split: str = ALL,
    category: str = ALL,
    difficulty: str = ALL,
    tag: str = ALL,
) -> list[dict[str, Any]]:
    """The cards that match every filter (``ALL`` or empty: any) and every word of ``query``
    (in the name, the instruction's start, the category or a tag)."""
    words = (query or "").lower().split()[:20]
    kept = []
    for card in cards:
        if split not in (ALL, "", None) and card.get("split") != split:
            continue
        if category not in (ALL, "", None) and str(card.get("category")) != category:
            continue
        if difficulty not in (ALL, "", None) and str(card.get("difficulty")) != difficulty:
            continue
        if tag not in (ALL, "", None) and tag not in [str(t) for t in card.get("tags") or []]:
            continue
        text = " ".join(
            [str(card.get(k) or "") for k in ("name", "instruction_preview", "category")]
            + [str(t) for t in card.get("tags") or []]
        ).lower()
        if all(w in text for w in words):
            kept.append(card)
    return kept


def cards_html(cards: list[dict[str, Any]], total: int, selected: tuple[str, int] | None) -> str:
    """The cards as a grid of buttons (``data-pick``: the :func:`task_key` that opens one)."""
    if not cards:
        return f'<p class="hb-empty">No task matches these filters ({total} served).</p>'
    shown = cards[:MAX_CARDS]
    items = [_card(card, selected) for card in shown]
    more = (
        f'<p class="hb-muted">{len(cards) - len(shown)} more: narrow the filters.</p>'
        if len(cards) > len(shown)
        else ""
    )
    head = f'<p class="hb-count">{len(cards)} of {total} task(s)</p>'
    return f'{head}<div class="hb-cards">{"".join(items)}</div>{more}'


def _card(card: dict[str, Any], selected: tuple[str, int] | None) -> str:
    key = (card["split"], card["index"])
    chosen = " hb-chosen" if selected == key else ""
    preview = " ".join(str(card.get("instruction_preview") or "").split())
    if len(preview) > MAX_PREVIEW:
        preview = preview[: MAX_PREVIEW - 1] + "…"
    chips = [card.get("difficulty"), card.get("category")]
    tags = "".join(f'<span class="hb-chip">{esc(c)}</span>' for c in chips if c)
    tags += "".join(f'<span class="oe-tag">{esc(t)}</span>' for t in (card.get("tags") or [])[:6])
    return (
        f'<button type="button" class="hb-card{chosen}" data-pick="{esc(task_key(*key))}" '
        f'title="open {esc(card["name"])}">'
        f'<span class="hb-card-name">{esc(card["name"])}</span>'
        f'<span class="hb-card-split">{esc(card["split"])}</span>'
        f'<span class="hb-card-text">{esc(preview)}</span>'
        f'<span class="hb-card-tags">{tags}</span></button>'
    )


def markdown_html(text: str) -> str:
    """Markdown as HTML without raw HTML (a task's instruction is shown as written)."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # markdown-it-py comes with Gradio; without it, the text as written
        return f'<pre class="hb-pre">{esc(text)}</pre>'
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def task_html(view: dict[str, Any]) -> str:
    """One task: what the agent receives, its metadata and settings (answer fields left out
    by the service), and how long the agent and the verifier may take."""
    meta = view.get("metadata") or {}
    rows = "".join(
        f"<dt>{esc(k)}</dt><dd>{esc(_plain(v))}</dd>" for k, v in list(meta.items())[:30]
    )
    solution = (
        "the TEST engine can replay its solution"
        if view.get("has_solution")
        else "no shipped solution: the TEST engine cannot run it"
    )
    instruction = markdown_html(str(view.get("instruction") or ""))
    return (
        f'<div class="hb-task"><h3>{esc(view["name"])} '
        f'<span class="hb-muted">{esc(view["split"])} #{int(view["index"])}</span></h3>'
        "<h4>What the agent receives</h4>"
        f'<div class="hb-instruction prose">{instruction}</div>'
        f'<dl class="hb-facts">{rows}'
        f"<dt>agent timeout</dt><dd>{esc(_seconds(view.get('agent_timeout_s')))}</dd>"
        f"<dt>verifier timeout</dt><dd>{esc(_seconds(view.get('verifier_timeout_s')))}</dd>"
        f"<dt>solution</dt><dd>{esc(solution)}</dd></dl>"
        f"{settings_html(view.get('settings') or {})}</div>"
    )


def settings_html(settings: dict[str, Any]) -> str:
    """task.toml's tables (environment, verifier, agent...) as lists of key = value."""
    blocks = []
    plain = {k: v for k, v in settings.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in settings.items() if isinstance(v, dict)}
    for name, table in [("task", plain), *tables.items()][:20]:
        if not table:
            continue
        rows = "".join(
            f"<dt>{esc(k)}</dt><dd>{esc(_plain(v))}</dd>" for k, v in list(table.items())[:40]
        )
        blocks.append(
            f'<div class="hb-setting"><h5>{esc(name)}</h5><dl class="hb-facts">{rows}</dl></div>'
        )
    if not blocks:
        return ""
    shown = "".join(blocks)
    return f'<h4>Environment and verifier settings</h4><div class="hb-settings">{shown}</div>'


def files_html(files: Iterable[dict[str, Any]]) -> str:
    """The task's files (environment/ and tests/) as buttons that open the viewer."""
    items = [
        f'<button type="button" class="hb-file" data-pick="{esc(f["path"])}">'
        f'📄 {esc(f["path"])} <span class="hb-muted">{int(f.get("bytes", 0)):,} B</span></button>'
        for f in list(files)[:500]
    ]
    if not items:
        return '<p class="hb-empty">This task has no environment/ or tests/ files.</p>'
    return f'<h4>Files</h4><div class="hb-files">{"".join(items)}</div>'


def task_runs_html(runs: list[Any]) -> str:
    """The runs of one task, newest first (each opens in the Runs tab)."""
    if not runs:
        return (
            '<h4>Runs of this task</h4><p class="hb-empty">None yet: run it from the run card.</p>'
        )
    return f"<h4>Runs of this task</h4>{runs_list_html(runs)}"


def runs_list_html(
    runs: list[Any],
    selected: str | None = None,
    limit: int = 100,
    ticked: list[str] | None = None,
) -> str:
    """Runs as rows (``data-pick``: the run id) with status, task, agent, model and reward;
    with ``ticked`` (the runs ticked to compare), each row has a tick box (``data-tick``)."""
    rows = []
    for record in runs[:limit]:
        chosen = " hb-chosen" if record.id == selected else ""
        model = record.model or {}
        who = (
            "TEST engine"
            if model.get("kind") == "test"
            else model.get("model") or model.get("kind", "")
        )
        reward = record.result.reward if record.result else None
        row = (
            f'<button type="button" class="hb-runrow{chosen}" data-pick="{esc(record.id)}">'
            f"{status_badge(record.status)}<span>{esc(record.task)}</span>"
            f'<span class="hb-muted">{esc(record.harness)} · {esc(record.sandbox)} · '
            f"{esc(who)}</span>"
            f'<span class="hb-reward">reward <b>{esc(reward_text(reward))}</b></span></button>'
        )
        rows.append(row if ticked is None else _tickable(record, row, record.id in ticked))
    more = (
        f'<p class="hb-muted">{len(runs) - limit} older run(s) not listed.</p>'
        if len(runs) > limit
        else ""
    )
    return f'<div class="hb-runs">{"".join(rows)}</div>{more}'


def _tickable(record: Any, row: str, ticked: bool) -> str:
    checked = " checked" if ticked else ""
    return (
        f'<div class="hb-runitem"><label class="hb-tick" title="tick to compare">'
        f'<input type="checkbox" data-tick="{esc(record.id)}"{checked} '
        f'aria-label="compare {esc(record.task)} ({esc(record.id)})"></label>{row}</div>'
    )


def _plain(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)[:500]


def _seconds(value: Any) -> str:
    return "—" if value is None else f"{float(value):g} s"
