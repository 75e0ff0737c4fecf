"""The Runs tab: the kept runs this visitor may see (its own; every run for the operator:
:class:`~openenv.harbor.service.HarborService`), filterable by status, and the open run: its
timeline, result, reward and trace checks, its downloads, Cancel while it runs. Each row has a
tick box: two to four ticked runs are compared side by side (:mod:`.compare`) between the list
and the open run; a fifth tick is refused with a note. A live run's view, and a comparison
holding a live run, follow it on a timer that ticks only while one is queued or running (and
sends nothing when nothing changed); the ticks are this page's (``rn_ticks``) and survive it.

(No ``from __future__ import annotations``: Gradio reads the handlers' annotations.)
"""

from typing import Any

import gradio as gr

from openenv.harbor.service import FINISHED, ServiceError
from openenv.harbor.web.cards import runs_list_html
from openenv.harbor.web.compare import COMPARE_ID, MAX_RUNS, compare_html, tick, ticks_head
from openenv.harbor.web.style import TICK, pick_js
from openenv.harbor.web.timeline import esc, run_html

STATUSES = ["all", "queued", "running", "ok", "failed", "cancelled"]
POLL_S = 1.0
NONE_OPEN = '<p class="hb-empty">Open a run from the list, or start one from the run card.</p>'
NO_TICKS: dict[str, Any] = {"ids": [], "note": ""}  # the runs ticked, a refused tick's note
GONE = "That run is no longer kept (dropped as old): it cannot be compared."


def build(ui: Any) -> None:
    ui.rn_ticks = gr.State(dict(NO_TICKS))  # the runs this page ticked to compare
    ui.rn_csent = gr.State("")  # the comparison last sent (an unchanged one is skipped)
    with gr.Row():
        ui.rn_status = gr.Radio(
            STATUSES, value="all", label="status", scale=4, elem_id="hb-rn-status"
        )
        ui.rn_refresh = gr.Button("↻ Refresh", size="sm", scale=0, elem_id="hb-rn-refresh")
    ui.rn_list = gr.HTML(  # filled when the tab opens, with this visitor's runs
        '<p class="hb-empty">Loading…</p>',
        js_on_load=pick_js("hb-rn-view", ticks=True),
        elem_id="hb-rn-list",
    )
    ui.rn_compare = gr.HTML(  # an open ▸ in a column opens that run below
        "", js_on_load=pick_js("hb-rn-view", ticks=True, always=True), elem_id=COMPARE_ID
    )
    ui.rn_view = gr.HTML(NONE_OPEN, elem_id="hb-rn-view")
    with gr.Row():
        ui.rn_cancel = gr.Button("■ Cancel run", variant="stop", visible=False, scale=0,
                                 elem_id="hb-rn-cancel")  # fmt: skip
        ui.rn_result = _download("⬇ Result JSON", "hb-dl-result")
        ui.rn_trace = _download("⬇ Training trace", "hb-dl-trace")
        ui.rn_capture = _download("⬇ Capture audit", "hb-dl-capture")
        ui.rn_links = gr.HTML("", elem_id="hb-rn-links")
    ui.rn_timer = gr.Timer(POLL_S, active=False)


def _download(label: str, elem_id: str) -> gr.DownloadButton:
    return gr.DownloadButton(label, visible=False, size="sm", scale=0, elem_id=elem_id)


def outputs(ui: Any) -> list[Any]:
    """What :func:`show` fills: the list, the view, Cancel, the downloads, the timer, ``sent``."""
    return [ui.rn_list, ui.rn_view, ui.rn_cancel, ui.rn_result, ui.rn_trace, ui.rn_capture,
            ui.rn_links, ui.rn_timer, ui.sent]  # fmt: skip


def _list(
    ui: Any, status: str, selected: str | None, viewer: str | None, ticks: dict[str, Any]
) -> str:
    runs = ui.service.runs(None if status in (None, "", "all") else status, viewer)
    head = ticks_head(len(ticks["ids"]), ticks["note"]) if runs or ticks["ids"] else ""
    if not runs:
        which = "" if status in (None, "", "all") else f" {status}"
        return f'{head}<p class="hb-empty">No{esc(which)} run yet.</p>'
    return head + runs_list_html(runs, selected, ticked=ticks["ids"])


def show(
    ui: Any,
    run_id: str | None,
    status: str,
    sent: str,
    viewer: str | None,
    ticks: dict[str, Any] | None = None,
    also_live: bool = False,
) -> tuple[Any, ...]:
    """The list (with ``ticks``: the :data:`NO_TICKS` shape) and run ``run_id`` as ``viewer``
    sees them now; each is skipped when it is what this page was last sent (``sent``: the
    list and the view, joined by a NUL). The timer ticks while the run, or ``also_live``
    (a compared run), is live."""
    listed = _list(ui, status, run_id, viewer, ticks or NO_TICKS)
    hidden = gr.update(visible=False)
    stopped = gr.Timer(active=also_live)
    if not run_id:
        return listed, NONE_OPEN, hidden, hidden, hidden, hidden, "", stopped, ""
    try:
        record = ui.service.run(run_id, viewer)
    except ServiceError as exc:
        gone = f'<p class="hb-reason">{esc(exc)}</p>'
        return listed, gone, hidden, hidden, hidden, hidden, "", stopped, ""
    live = record.status not in FINISHED
    view = run_html(record, ui.service.capture(run_id))
    if ui.links:
        downloads, links = [hidden] * 3, links_html(ui.links, record)
    else:
        files = ui.downloads.files(record)
        downloads = [
            gr.update(visible=True, value=str(path)) if path is not None else hidden
            for path in files.values()
        ]
        links = ""
    last_list, _, last_view = (sent or "").partition("\0")
    return (
        gr.skip() if listed == last_list else listed,
        gr.skip() if view == last_view else view,
        gr.update(visible=live),
        *downloads,
        links,
        gr.Timer(active=live or also_live),
        f"{listed}\0{view}",
    )


def compared(
    ui: Any, ticks: dict[str, Any], csent: str, viewer: str | None
) -> tuple[Any, str, bool]:
    """The comparison of the ticked runs ``viewer`` may see (skipped when it is ``csent``,
    what this page was last sent), what it is now, and whether one of them is live."""
    entries, hidden = [], 0
    for run_id in ticks["ids"][:MAX_RUNS]:
        try:
            entries.append((ui.service.run(run_id, viewer), ui.service.capture(run_id)))
        except ServiceError:  # dropped as old (or never this viewer's): left out, said
            hidden += 1
    drawn = compare_html(entries, hidden)
    live = any(not record.finished for record, _ in entries)
    return (gr.skip() if drawn == csent else drawn), drawn, live


def everything(
    ui: Any, run_id: str | None, status: str, sent: str, ticks: dict[str, Any], csent: str,
    viewer: str | None,
) -> tuple[Any, ...]:  # fmt: skip
    """:func:`show`'s outputs, then the comparison and what it is (``rn_compare``, ``rn_csent``)."""
    drawn, now, live = compared(ui, ticks, csent, viewer)
    return (*show(ui, run_id, status, sent, viewer, ticks, also_live=live), drawn, now)


def ticked(ui: Any, ticks: dict[str, Any], run_id: str, on: bool, viewer: str | None) -> dict:
    """The ticks once ``run_id`` is ticked (``on``) or unticked (``""``: all); ticking one
    first forgets the ticked runs no longer kept, and a run ``viewer`` may not see is refused."""
    if not on:
        return {"ids": tick(ticks["ids"], run_id, False)[0], "note": ""}
    kept = [i for i in ticks["ids"] if _sees(ui, i, viewer)]
    if not _sees(ui, run_id, viewer):
        return {"ids": kept, "note": GONE}
    ids, note = tick(kept, run_id, True)
    return {"ids": ids, "note": note}


def _sees(ui: Any, run_id: str, viewer: str | None) -> bool:
    try:
        ui.service.run(run_id, viewer)
    except ServiceError:
        return False
    return True


def links_html(base: str, record: Any) -> str:
    """A finished run's downloads as links to the server's run routes (``base``)."""
    result = record.result
    if not record.finished or result is None:
        return ""
    shown = [("result.json", "⬇ Result JSON")]
    if result.trace is not None:
        shown.append(("training_trace.json", "⬇ Training trace"))
    if result.capture is not None:
        shown.append(("capture.json", "⬇ Capture audit"))
    return (
        '<div class="hb-links">'
        + "".join(
            f'<a class="oe-tag" href="{esc(base)}/{esc(record.id)}/{name}" download>{label}</a>'
            for name, label in shown
        )
        + "</div>"
    )


def wire(ui: Any) -> None:
    fast: dict[str, Any] = {"concurrency_limit": None, "show_progress": "hidden"}
    shown = [*outputs(ui), ui.rn_compare, ui.rn_csent]
    state = [ui.run, ui.rn_status, ui.sent, ui.rn_ticks, ui.rn_csent]

    def pick(run_id: str | None, status: str, sent: str, ticks: dict, csent: str,
             evt: gr.SelectData, request: gr.Request):  # fmt: skip
        viewer, value = ui.viewer_of(request), str(evt.value)[:64]
        if evt.index == TICK:  # the list is sent again: a refused tick's box unticks
            ticks = ticked(ui, ticks, value, bool(evt.selected), viewer)
            again = "\0" + (sent or "").partition("\0")[2]
            return (gr.skip(), ticks, *everything(ui, run_id, status, again, ticks, csent, viewer))
        return (value, gr.skip(), *everything(ui, value, status, "", ticks, csent, viewer))

    for drawn in (ui.rn_list, ui.rn_compare):
        drawn.select(pick, state, [ui.run, ui.rn_ticks, *shown], **fast)

    def pick_from_task(ticks: dict, csent: str, evt: gr.SelectData, request: gr.Request):
        run_id = str(evt.value)[:64]
        shown_now = everything(ui, run_id, "all", "", ticks, csent, ui.viewer_of(request))
        return (gr.Tabs(selected="runs"), run_id, *shown_now)

    ui.task_runs.select(
        pick_from_task, [ui.rn_ticks, ui.rn_csent], [ui.tabs, ui.run, *shown], **fast
    )

    def refresh(run_id: str | None, status: str, sent: str, ticks: dict, csent: str,
                request: gr.Request):  # fmt: skip
        return everything(ui, run_id, status, sent, ticks, csent, ui.viewer_of(request))

    # ui.run changes when the run card starts a run (its list knows no ticks: drawn again)
    for event in (ui.rn_status.change, ui.rn_refresh.click, ui.runs_tab.select, ui.run.change):
        event(refresh, state, shown, **fast)
    ui.rn_timer.tick(refresh, state, shown, **fast)

    def cancel(run_id: str | None, status: str, sent: str, ticks: dict, csent: str,
               request: gr.Request):  # fmt: skip
        viewer = ui.viewer_of(request)
        if run_id:
            try:
                ui.service.cancel(run_id, viewer)
            except ServiceError:
                pass  # dropped meanwhile: the view says so
        return everything(ui, run_id, status, "", ticks, csent, viewer)

    ui.rn_cancel.click(cancel, state, shown, **fast)
