"""The Tasks tab: task cards with a search and filters (dataset, category, difficulty, tag);
an open task's page (what the agent receives, its settings, its files in a full-window viewer,
its runs) and "Run this task", which takes it to the run card. Above them, "Add from the Hub"
(:mod:`.hub_tab`) when the server allows it; the cards and the filters' choices follow the
served datasets.

(No ``from __future__ import annotations``: Gradio reads the handlers' annotations.)
"""

from pathlib import PurePosixPath
from typing import Any

import gradio as gr

from openenv.harbor.service import ServiceError
from openenv.harbor.web import cards as draw
from openenv.harbor.web.style import PICK_JS, pick_js

HINT = (
    '<p class="hb-empty">Open a task card to see what the agent receives, its files and runs.</p>'
)
LANGUAGES = {".py": "python", ".sh": "shell", ".json": "json", ".md": "markdown",
             ".toml": None, ".yaml": "yaml", ".yml": "yaml", ".js": "javascript",
             ".html": "html", ".css": "css", ".sql": "sql"}  # fmt: skip


def build(ui: Any) -> None:
    cards = ui.service.tasks()
    if ui.hub is not None:
        from openenv.harbor.web import hub_tab

        hub_tab.build(ui)
    with gr.Row(elem_id="hb-filters"):
        ui.query = gr.Textbox(
            label="search", placeholder="name, words of the instruction, a tag…", scale=3,
            min_width=200, elem_id="hb-query",
        )  # fmt: skip
        ui.f_split = _facet("dataset", cards, "split", "hb-f-split")
        ui.f_category = _facet("category", cards, "category", "hb-f-category")
        ui.f_difficulty = _facet("difficulty", cards, "difficulty", "hb-f-difficulty")
        ui.f_tag = _facet("tag", cards, "tags", "hb-f-tag")
    with gr.Row(equal_height=False):
        with gr.Column(scale=5, min_width=300):
            ui.cards = gr.HTML(
                draw.cards_html(cards, len(cards), None),
                js_on_load=pick_js("hb-detail"),
                elem_id="hb-cards",
            )
        with gr.Column(scale=6, min_width=300, elem_id="hb-detail"):
            with gr.Row():
                ui.run_this = gr.Button(
                    "▶ Run this task", variant="primary", visible=False, scale=0, min_width=180,
                    elem_id="hb-run-this",
                )  # fmt: skip
            ui.task_box = gr.HTML(HINT, elem_id="hb-task")
            ui.files_box = gr.HTML("", js_on_load=PICK_JS, elem_id="hb-files-box")
            ui.task_runs = gr.HTML("", js_on_load=PICK_JS, elem_id="hb-task-runs")
    with gr.Column(visible=False, elem_id="hb-viewer") as ui.viewer:
        with gr.Row():
            ui.viewer_title = gr.HTML(elem_id="hb-viewer-title")
            ui.viewer_close = gr.Button("✕ Close", size="sm", scale=0, elem_id="hb-viewer-close")
        ui.viewer_code = gr.Code(
            interactive=False, show_label=False, lines=24, wrap_lines=True, elem_id="hb-viewer-code"
        )


def _facet(label: str, cards: list[dict[str, Any]], key: str, elem_id: str) -> gr.Dropdown:
    return gr.Dropdown(
        draw.facet_values(cards, key), value=draw.ALL, label=label, min_width=130,
        elem_id=elem_id,
    )  # fmt: skip


FACETS = (("split", 1), ("category", 2), ("difficulty", 3), ("tags", 4))


def redraw(ui: Any, filters: list[str], key: Any) -> tuple[Any, ...]:
    """The cards and the four filters' choices as the served datasets are now (``filters``: the
    search, dataset, category, difficulty and tag; one whose value went away, with its dataset,
    goes back to all)."""
    every = ui.service.tasks()
    values = list(filters)
    facets = []
    for name, at in FACETS:
        choices = draw.facet_values(every, name)
        if values[at] not in choices:
            values[at] = draw.ALL
        facets.append(gr.update(choices=choices, value=values[at]))
    kept = draw.filter_cards(every, *values)
    return (draw.cards_html(kept, len(every), key), *facets)


def wire(ui: Any) -> None:
    fast: dict[str, Any] = {"concurrency_limit": None, "show_progress": "hidden"}
    filters = [ui.query, ui.f_split, ui.f_category, ui.f_difficulty, ui.f_tag]

    def refilter(query: str, split: str, category: str, difficulty: str, tag: str, key: Any):
        every = ui.service.tasks()
        kept = draw.filter_cards(every, query, split, category, difficulty, tag)
        return draw.cards_html(kept, len(every), key)

    for box in filters:  # typing: the last keystroke's search is always the one drawn
        event = box.input if box is ui.query else box.change
        event(refilter, [*filters, ui.task], ui.cards, trigger_mode="always_last", **fast)

    def open_task(query: str, split: str, category: str, difficulty: str, tag: str,
                  evt: gr.SelectData, request: gr.Request):  # fmt: skip
        key = draw.parse_task_key(evt.value)
        if key is None:
            return (gr.skip(),) * 6
        try:
            view = ui.service.task_view(*key)
        except ServiceError as exc:  # the split went away since the cards were drawn
            return None, _error(str(exc)), gr.update(visible=False), "", "", gr.skip()
        mine = ui.service.runs(viewer=ui.viewer_of(request))
        runs = [r for r in mine if (r.split, r.task_index) == key]
        cards = refilter(query, split, category, difficulty, tag, key)
        return (
            key, draw.task_html(view), gr.update(visible=True), draw.files_html(view["files"]),
            draw.task_runs_html(runs), cards,
        )  # fmt: skip

    ui.cards.select(
        open_task, filters,
        [ui.task, ui.task_box, ui.run_this, ui.files_box, ui.task_runs, ui.cards], **fast,
    )  # fmt: skip

    def open_file(key: Any, evt: gr.SelectData):
        if key is None:
            return gr.skip(), gr.skip(), gr.skip()
        path = str(evt.value)[:1000]
        try:
            text = ui.service.task_file(key[0], key[1], path)
        except ServiceError as exc:
            text, path = str(exc), f"{path} (not shown)"
        title = f"📄 {draw.esc(path)}"
        language = LANGUAGES.get(PurePosixPath(path).suffix.lower())
        if PurePosixPath(path).name == "Dockerfile":
            language = "dockerfile"
        code = gr.update(value=text, language=language)
        return gr.update(visible=True), title, code

    ui.files_box.select(open_file, [ui.task], [ui.viewer, ui.viewer_title, ui.viewer_code], **fast)
    ui.viewer_close.click(lambda: gr.update(visible=False), None, ui.viewer, **fast)
    if ui.hub is not None:
        from openenv.harbor.web import hub_tab

        hub_tab.wire(ui)


def _error(text: str) -> str:
    return f'<p class="hb-reason">{draw.esc(text)}</p>'
