"""The Runs tab: the kept runs this visitor may see (its own; every run for the operator:
:class:`~openenv.harbor.service.HarborService`), filterable by status, and the open run: its
timeline, result, reward and trace checks, its downloads, Cancel while it runs. A live run's
view follows it on a timer that ticks only while the run is queued or running (and sends nothing
when nothing changed).

(No ``from __future__ import annotations``: Gradio reads the handlers' annotations.)
"""

from typing import Any

import gradio as gr

from openenv.harbor.service import FINISHED, ServiceError
from openenv.harbor.web.cards import runs_list_html
from openenv.harbor.web.style import pick_js
from openenv.harbor.web.timeline import esc, run_html

STATUSES = ["all", "queued", "running", "ok", "failed", "cancelled"]
POLL_S = 1.0
NONE_OPEN = '<p class="hb-empty">Open a run from the list, or start one from the run card.</p>'


def build(ui: Any) -> None:
    with gr.Row():
        ui.rn_status = gr.Radio(
            STATUSES, value="all", label="status", scale=4, elem_id="hb-rn-status"
        )
        ui.rn_refresh = gr.Button("↻ Refresh", size="sm", scale=0, elem_id="hb-rn-refresh")
    ui.rn_list = gr.HTML(  # filled when the tab opens, with this visitor's runs
        '<p class="hb-empty">Loading…</p>', js_on_load=pick_js("hb-rn-view"), elem_id="hb-rn-list"
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


def _list(ui: Any, status: str, selected: str | None, viewer: str | None) -> str:
    runs = ui.service.runs(None if status in (None, "", "all") else status, viewer)
    if not runs:
        which = "" if status in (None, "", "all") else f" {status}"
        return f'<p class="hb-empty">No{esc(which)} run yet.</p>'
    return runs_list_html(runs, selected)


def show(
    ui: Any, run_id: str | None, status: str, sent: str, viewer: str | None
) -> tuple[Any, ...]:
    """The list and run ``run_id`` as ``viewer`` sees them now; each is skipped when it is
    what this page was last sent (``sent``: the list and the view, joined by a NUL)."""
    listed = _list(ui, status, run_id, viewer)
    hidden = gr.update(visible=False)
    stopped = gr.Timer(active=False)
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
        gr.Timer(active=live),
        f"{listed}\0{view}",
    )


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
    shown = outputs(ui)

    def pick(status: str, evt: gr.SelectData, request: gr.Request):
        run_id = str(evt.value)[:64]
        return (run_id, *show(ui, run_id, status, "", ui.viewer_of(request)))

    ui.rn_list.select(pick, [ui.rn_status], [ui.run, *shown], **fast)

    def pick_from_task(evt: gr.SelectData, request: gr.Request):
        run_id = str(evt.value)[:64]
        shown_now = show(ui, run_id, "all", "", ui.viewer_of(request))
        return (gr.Tabs(selected="runs"), run_id, *shown_now)

    ui.task_runs.select(pick_from_task, None, [ui.tabs, ui.run, *shown], **fast)

    def refresh(run_id: str | None, status: str, sent: str, request: gr.Request):
        return show(ui, run_id, status, sent, ui.viewer_of(request))

    for event in (ui.rn_status.change, ui.rn_refresh.click, ui.runs_tab.select):
        event(refresh, [ui.run, ui.rn_status, ui.sent], shown, **fast)
    ui.rn_timer.tick(refresh, [ui.run, ui.rn_status, ui.sent], shown, **fast)

    def cancel(run_id: str | None, status: str, request: gr.Request):
        viewer = ui.viewer_of(request)
        if run_id:
            try:
                ui.service.cancel(run_id, viewer)
            except ServiceError:
                pass  # dropped meanwhile: the view says so
        return show(ui, run_id, status, "", viewer)

    ui.rn_cancel.click(cancel, [ui.run, ui.rn_status], shown, **fast)
