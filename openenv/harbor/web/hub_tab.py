"""The Tasks tab's "Add from the Hub": a search of the public datasets tagged ``harbor`` (each
with its task count and size, or why it cannot be added), "Add" (the download's progress followed
on a timer that ticks only while an add runs), and "Remove" for a dataset added this way. The
task cards and the filters' choices follow the served datasets (:mod:`.hub_adds` does the work).

(No ``from __future__ import annotations``: Gradio reads the handlers' annotations.)
"""

import asyncio
import json
from typing import Any

import gradio as gr

from openenv.core.harness.tasks import TaskError
from openenv.core.harness.tasks.hub import MAX_SEARCH_CHARS, HubDataset
from openenv.harbor.web import tasks_tab
from openenv.harbor.web.hub_adds import HubAdd, HubAddError
from openenv.harbor.web.style import PICK_JS
from openenv.harbor.web.timeline import esc

POLL_S = 1.0
FIRST = '<p class="hb-empty">Search the Hub, or leave the box empty to list every dataset.</p>'


def build(ui: Any) -> None:
    with gr.Accordion("➕ Add from the Hub", open=False, elem_id="hb-hub") as ui.hub_box:
        gr.HTML(
            '<p class="hb-note">Public Hugging Face datasets tagged <code>harbor</code>, in '
            "Harbor's <code>tasks/&lt;name&gt;/</code> layout (flat or grouped). An added "
            "dataset is downloaded to this server and served beside the others.</p>"
        )
        with gr.Row():
            ui.hub_query = gr.Textbox(
                show_label=False, placeholder="search datasets tagged harbor…", scale=4,
                max_length=MAX_SEARCH_CHARS, container=False, elem_id="hb-hub-query",
            )  # fmt: skip
            ui.hub_search = gr.Button("Search", scale=0, min_width=110, elem_id="hb-hub-search")
        ui.hub_msg = gr.HTML("", elem_id="hb-hub-msg", elem_classes=["hb-msg"])
        ui.hub_list = gr.HTML(FIRST, js_on_load=PICK_JS, elem_id="hb-hub-list")
    ui.hub_found = gr.State([])  # this page's last listing (HubDataset fields)
    ui.hub_seen = gr.State(ui.hub.version)  # the served datasets' version the cards show
    ui.hub_timer = gr.Timer(POLL_S, active=False)


def wire(ui: Any) -> None:
    fast: dict[str, Any] = {"concurrency_limit": None, "show_progress": "hidden"}
    filters = [ui.query, ui.f_split, ui.f_category, ui.f_difficulty, ui.f_tag]
    tasks = [ui.cards, ui.f_split, ui.f_category, ui.f_difficulty, ui.f_tag, ui.hub_seen]
    shown = [ui.hub_list, ui.hub_msg, ui.hub_found, ui.hub_timer, *tasks]

    def redraw(found: list, msg: Any, seen: int, values: list, key: Any) -> tuple:
        timer = gr.Timer(active=ui.hub.running())
        return (list_html(found, ui.hub.states()), msg, found, timer,
                *_tasks(ui, seen, values, key))  # fmt: skip

    async def search(query: str, seen: int, q: str, sp: str, ca: str, di: str, tg: str, key: Any):
        values = [q, sp, ca, di, tg]
        try:
            listed = await asyncio.to_thread(ui.hub.listing, str(query or "")[:MAX_SEARCH_CHARS])
        except TaskError as exc:
            return redraw([], error_html(str(exc)), seen, values, key)
        found = [d.__dict__ for d in listed]
        msg = "" if found else '<p class="hb-empty">No dataset tagged harbor matches.</p>'
        return redraw(found, msg, seen, values, key)

    inputs = [ui.hub_query, ui.hub_seen, *filters, ui.task]
    for event in (ui.hub_search.click, ui.hub_query.submit, ui.hub_box.expand):
        event(search, inputs, shown, **fast)

    async def pick(found: list, seen: int, q: str, sp: str, ca: str, di: str, tg: str, key: Any,
                   evt: gr.SelectData):  # fmt: skip
        values = [q, sp, ca, di, tg]
        action, dataset_id = parse_pick(evt.value)
        try:
            if action == "add":
                ui.hub.start(dataset_id)
                msg = ""  # its row shows the download's progress
            elif action == "remove":
                await asyncio.to_thread(ui.hub.remove, dataset_id)
                msg = f'<span class="oe-ok">Removed {esc(dataset_id)}.</span>'
            else:
                return (gr.skip(),) * len(shown)
        except HubAddError as exc:
            msg = error_html(str(exc))
        return redraw(found, msg, seen, values, key)

    ui.hub_list.select(pick, [ui.hub_found, ui.hub_seen, *filters, ui.task], shown, **fast)

    def tick(found: list, seen: int, q: str, sp: str, ca: str, di: str, tg: str, key: Any):
        return redraw(found, gr.skip(), seen, [q, sp, ca, di, tg], key)

    ui.hub_timer.tick(tick, [ui.hub_found, ui.hub_seen, *filters, ui.task], shown, **fast)

    def follow(seen: int, q: str, sp: str, ca: str, di: str, tg: str, key: Any):
        return _tasks(ui, seen, [q, sp, ca, di, tg], key)  # another visitor's add, on opening

    ui.tasks_tab.select(follow, [ui.hub_seen, *filters, ui.task], tasks, **fast)


def _tasks(ui: Any, seen: int, values: list, key: Any) -> tuple:
    """The cards and the filters' choices, when the served datasets changed since ``seen``."""
    version = ui.hub.version
    if version == seen:
        return (gr.skip(),) * 6
    return (*tasks_tab.redraw(ui, values, key), version)


def parse_pick(value: Any) -> tuple[str, str]:
    """``(action, dataset id)`` from a clicked button's ``data-pick``; ("", "") for junk."""
    try:
        action, dataset_id = json.loads(str(value)[:1000])
    except (ValueError, TypeError):
        return "", ""
    if action not in ("add", "remove") or not isinstance(dataset_id, str):
        return "", ""
    return action, dataset_id[:300]


def _button(action: str, dataset_id: str, label: str) -> str:
    pick = esc(json.dumps([action, dataset_id]))
    kind = "hb-hub-remove" if action == "remove" else "hb-hub-add"
    return f'<button type="button" class="hb-hub-btn {kind}" data-pick="{pick}">{label}</button>'


def size_text(size: int) -> str:
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def list_html(found: list[dict[str, Any]], adds: list[HubAdd]) -> str:
    """The adds (running, done, failed) first, then the listing's other datasets."""
    by_id = {a.id: a for a in adds}
    rows = [_add_row(a, found) for a in adds]
    for item in found[:100]:
        if item["id"] not in by_id:
            rows.append(_row(HubDataset(**item)))
    if not rows:
        return FIRST
    return f'<div class="hb-hub-rows">{"".join(rows)}</div>'


def _row(dataset: HubDataset) -> str:
    facts = (
        f"{dataset.tasks} task(s) · {size_text(dataset.size_bytes)}"
        f" · ♥ {dataset.likes} · ⬇ {dataset.downloads}"
    )
    if dataset.problem:
        why = f'<span class="hb-fail">cannot be added: {esc(dataset.problem[:400])}</span>'
        return _line(dataset.id, why, "")
    return _line(dataset.id, esc(facts), _button("add", dataset.id, "＋ Add"))


def _add_row(add: HubAdd, found: list[dict[str, Any]]) -> str:
    if add.status == "adding":
        done, total = add.done, max(add.total, add.done)
        bar = f'<progress max="{total or 1}" value="{done}"></progress>'
        count = f"{done}/{total} files" if total else "reading the file list…"
        return _line(add.id, f"{bar} {esc(count)}", '<span class="hb-running">adding…</span>')
    if add.status == "failed":
        again = (
            _button("add", add.id, "↻ Try again") if any(f["id"] == add.id for f in found) else ""
        )
        reason = f'<p class="hb-reason">Nothing added: {esc(add.reason)}</p>'
        return _line(add.id, reason, again + _button("remove", add.id, "✕ Dismiss"))
    facts = f'<span class="hb-pass">✓ added: {add.tasks} task(s)</span>'
    if add.note:
        facts += f' <span class="hb-muted">({esc(add.note[:300])})</span>'
    if add.problems:
        items = "".join(f"<li><code>{esc(p.task)}</code>: {esc(p.reason[:300])}</li>"
                        for p in add.problems)  # fmt: skip
        facts += (
            f"<details><summary>{len(add.problems)} task(s) could not be read</summary>"
            f"<ul>{items}</ul></details>"
        )
    return _line(add.id, facts, _button("remove", add.id, "✕ Remove"))


def _line(dataset_id: str, facts: str, state: str) -> str:
    return (
        f'<div class="hb-hub-row" data-id="{esc(dataset_id)}">'
        f'<span class="hb-hub-id"><code>{esc(dataset_id)}</code></span>'
        f'<span class="hb-hub-facts">{facts}</span><span class="hb-hub-state">{state}</span></div>'
    )


def error_html(text: str) -> str:
    return f'<span class="oe-error">{esc(text[:2000])}</span>'
