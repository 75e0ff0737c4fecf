"""The playground's REPL tab: a code box with Run, and a final answer with Submit.

Each Run is one step of the visitor's episode (logged with its reward, like a button press);
the stage above shows the transcript. Imported only when the page is built
(``app.py``), so serving the API alone never loads Gradio.
"""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

EXAMPLE = "x = 6 * 7\nx"


def repl_tab(api: Any) -> None:
    """Draw the code box, Run, the final answer box and Submit, and a status line."""
    editor = gr.Code(value=EXAMPLE, language="python", label="Python cell", elem_id="oe-repl-code")
    run = gr.Button("▶ Run cell", variant="primary", elem_id="oe-repl-run")
    with gr.Row():
        answer = gr.Textbox(label="final answer", scale=3, elem_id="oe-repl-answer")
        submit = gr.Button("Submit answer", scale=1, elem_id="oe-repl-submit")
    status = gr.HTML(elem_id="oe-repl-status")

    async def on_run(source: str, request: gr.Request):
        data = await api.step(request, {"code": source or ""})
        return await api.stage_html(request), status_html(data)

    async def on_submit(text: str, request: gr.Request):
        data = await api.step(request, {"is_final": True, "final_answer": text or ""})
        return await api.stage_html(request), status_html(data)

    run.click(on_run, [editor], [api.stage, status], show_progress="minimal")
    submit.click(on_submit, [answer], [api.stage, status], show_progress="minimal")


def status_html(data: dict[str, Any]) -> str:
    """One line: the cell's outcome (or the verdict on the answer) and the reward."""
    obs = data.get("observation") or {}
    result = obs.get("result") or {}
    meta = obs.get("metadata") or {}
    ok = bool(result.get("success", True)) if not data.get("done") else bool(meta.get("correct"))
    text = meta.get("message") or result.get("exception") or "ran without error"
    text = f"{text} · reward {data.get('reward')}"
    css = "oe-ok" if ok else "oe-error"
    return f'<span class="{css}">{"✓" if ok else "✗"} {html.escape(str(text))}</span>'
