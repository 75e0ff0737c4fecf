"""The playground's Terminal tab: a command line (Enter runs it), an Evaluate button and a
status line. Each command is one ``exec`` step of the visitor's episode; the stage above shows
the transcript. Gradio is imported only when the page is built.
"""

import html
from typing import Any


def terminal_tab(api: Any) -> None:
    """Draw the command box, Run, Evaluate and the status line.

    (No ``from __future__ import annotations`` in this module: Gradio finds the
    ``request: gr.Request`` parameter of a handler by its evaluated annotation.)"""
    import gradio as gr

    with gr.Row():
        command = gr.Textbox(
            label="command",
            placeholder="ls -F   (Enter runs it)",
            scale=4,
            elem_id="oe-tb2-command",
            autofocus=True,
        )
        run = gr.Button("▶ Run", variant="primary", scale=1, elem_id="oe-tb2-run")
        evaluate = gr.Button("Evaluate", scale=1, elem_id="oe-tb2-evaluate")
    status = gr.HTML(elem_id="oe-tb2-status")

    async def on_run(text: str, request: gr.Request):
        action = {"action_type": "exec", "command": text or ""}
        data = await api.step(request, action, label=f"$ {text or ''}")
        return await api.stage_html(request), status_html(data), ""

    async def on_evaluate(request: gr.Request):
        data = await api.step(request, {"action_type": "evaluate"}, label="Evaluate")
        return await api.stage_html(request), status_html(data)

    outputs = [api.stage, status, command]
    run.click(on_run, [command], outputs, show_progress="minimal")
    command.submit(on_run, [command], outputs, show_progress="minimal")
    evaluate.click(on_evaluate, [], [api.stage, status], show_progress="minimal")


def status_html(data: dict[str, Any]) -> str:
    """One line: the exit code (or the error, or the tests' verdict) and the reward."""
    obs = data.get("observation") or {}
    info = obs.get("info") or {}
    if obs.get("error"):
        text, ok = str(obs["error"]), False
    elif "tests" in info:
        tests = info["tests"]
        passed = sum(v == "passed" for v in tests.values())
        text, ok = f"tests: {passed}/{len(tests)} passed", bool(data.get("reward"))
    else:
        code = info.get("exit_code", 0)
        text, ok = f"exit code {code} · in {info.get('cwd', '/app')}", code == 0
    text = f"{text} · reward {data.get('reward')}"
    css = "oe-ok" if ok else "oe-error"
    return f'<span class="{css}">{"✓" if ok else "✗"} {html.escape(text)}</span>'
