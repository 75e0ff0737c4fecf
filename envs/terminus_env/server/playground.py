"""The playground's Terminal tab: a command line (Enter runs it) and a final answer box.

Each command is one step of the visitor's episode (logged with its reward, like a button
press); the stage above shows the transcript. Gradio is imported only when the page is built.
"""

import html
from typing import Any


def terminal_tab(api: Any) -> None:
    """Draw the command box, Run, the final answer box and Submit, and a status line.

    (No ``from __future__ import annotations`` in this module: Gradio finds the
    ``request: gr.Request`` parameter of a handler by its evaluated annotation.)"""
    import gradio as gr

    with gr.Row():
        command = gr.Textbox(
            label="command",
            placeholder="ls -F   (Enter runs it)",
            scale=4,
            elem_id="oe-term-command",
            autofocus=True,
        )
        run = gr.Button("▶ Run", variant="primary", scale=1, elem_id="oe-term-run")
    with gr.Row():
        answer = gr.Textbox(label="final answer", scale=4, elem_id="oe-term-answer")
        submit = gr.Button("Submit answer", scale=1, elem_id="oe-term-submit")
    status = gr.HTML(elem_id="oe-term-status")

    async def on_run(text: str, request: gr.Request):
        data = await api.step(request, _call(command=text or ""))
        return await api.stage_html(request), status_html(data), ""

    async def on_submit(text: str, request: gr.Request):
        data = await api.step(request, _call(final_answer=text or ""))
        return await api.stage_html(request), status_html(data)

    outputs = [api.stage, status, command]
    run.click(on_run, [command], outputs, show_progress="minimal")
    command.submit(on_run, [command], outputs, show_progress="minimal")
    submit.click(on_submit, [answer], [api.stage, status], show_progress="minimal")


def status_html(data: dict[str, Any]) -> str:
    """One line: the exit code (or the tool's error, or the verdict) and the reward."""
    obs = data.get("observation") or {}
    meta = obs.get("metadata") or {}
    error = obs.get("error")
    if error:
        text, ok = str(error.get("message", "")), False
    elif "verdict" in meta:
        reasons = "; ".join(meta["verdict"].get("reasons") or []) or "answer submitted"
        text, ok = reasons, bool(data.get("reward"))
    else:
        code = meta.get("exit_code", 0)
        text, ok = f"exit code {code} · in {meta.get('cwd', '~')}", code == 0
    text = f"{text} · reward {data.get('reward')}"
    css = "oe-ok" if ok else "oe-error"
    return f'<span class="{css}">{"✓" if ok else "✗"} {html.escape(text)}</span>'


def _call(**arguments: str) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": "terminal", "arguments": arguments}
