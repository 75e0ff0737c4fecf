"""Playground tabs for tool environments and for code: built through ``gradio_builder``.

``tools_tab(api)``: a tool picker, a form per tool generated from its JSON input schema (nested
objects and arrays are edited as JSON and sent as objects and arrays, never as strings), a Call
button, and the result drawn legibly (text as text, structures as indented JSON, failures with
their kind and message). ``code_tab(api)``: a Python editor with a Run button and the outputs
(stdout, stderr, exit code) below it. Both act through ``api.step``, so every call is a step of
the visitor's episode: it shows in the episode log with its reward.

Every tool environment (an ``MCPEnvironment``) gets the Tools tab without asking: the page
selects it first (:mod:`openenv.web.page.blocks`). ``code_tab`` is wired from a server app
(Gradio is imported only when the page is built)::

    def playground_tab(api):
        from openenv.web.page.tools import code_tab

        code_tab(api)

    app = create_app(MyCodeEnvironment, gradio_builder=playground_tab, custom_tab_name="Code")
"""

from __future__ import annotations

import html
import json
from typing import Any

import gradio as gr

from openenv.core.mcp import Tool, is_mcp_environment, tool_value
from openenv.web import forms
from openenv.web.page.extension import PlaygroundAPI
from openenv.web.page.widgets import widget

CODE_EXAMPLE = "x = 5 + 3\nprint(f'Result: {x}')"


# -- tools --------------------------------------------------------------------------------------


def tools_tab(api: PlaygroundAPI) -> None:
    """Draw the tool picker, one form per tool, the Call button and the result area."""
    tools = _tools(api)
    if not tools:
        gr.Markdown("This environment declares no tools.")
        return
    first = tools[0]
    picker = gr.Dropdown(
        choices=[t.name for t in tools], value=first.name, label="Tool", elem_id="oe-tool-picker"
    )
    about = gr.Markdown(_about(first), elem_id="oe-tool-about")
    forms_by_tool: dict[str, tuple[gr.Group, list[forms.FieldSpec], list[Any]]] = {}
    for tool in tools:
        with gr.Group(visible=tool is first, elem_id=f"oe-tool-form-{tool.name}") as group:
            specs = forms.fields_from_schema(tool.input_schema)
            inputs = [widget(spec, f"oe-arg-{tool.name}-{spec.name}") for spec in specs]
            if not specs:
                gr.Markdown("_This tool takes no arguments._")
        forms_by_tool[tool.name] = (group, specs, inputs)
    call = gr.Button("Call", variant="primary", elem_id="oe-tool-call")
    result = gr.HTML(elem_id="oe-tool-result")
    by_name = {t.name: t for t in tools}

    def on_pick(name: str):
        groups = [gr.update(visible=n == name) for n in forms_by_tool]
        return [_about(by_name[name]), *groups]

    async def on_call(form: dict[Any, Any], request: gr.Request):
        name = form[picker]
        _, specs, inputs = forms_by_tool[name]
        arguments, errors = forms.parse_values(specs, [form[c] for c in inputs])
        if errors:
            return gr.skip(), _error_html("Not sent: " + "; ".join(errors))
        action = {"type": "call_tool", "tool_name": name, "arguments": arguments}
        data = await api.step(request, action)
        return await api.stage_html(request), result_html(data)

    groups = [group for group, _, _ in forms_by_tool.values()]
    picker.change(on_pick, [picker], [about, *groups], show_progress="hidden")
    every_input = {picker, *(c for _, _, inputs in forms_by_tool.values() for c in inputs)}
    call.click(on_call, every_input, [api.stage, result], show_progress="hidden")


def _tools(api: PlaygroundAPI) -> list[Tool]:
    return tools_of(api.ctx.env_cls)


def tools_of(env_cls: Any) -> list[Tool]:
    """The tools of a tool environment (its own, or the ones a remote server listed)."""
    if is_mcp_environment(env_cls):
        return [spec.tool for spec in env_cls.tool_specs().values()]
    return list(getattr(env_cls, "remote_tools", None) or [])


def _about(tool: Tool) -> str:
    return f"**{tool.name}**: {tool.description}"


def result_html(data: dict[str, Any]) -> str:
    """A tool call's outcome for people: status line, then the value or the error."""
    obs = data.get("observation") or {}
    name = html.escape(str(obs.get("tool_name") or "tool"))
    status = f"reward {data.get('reward')}" + (" · episode over" if data.get("done") else "")
    error = obs.get("error")
    if error:
        kind = html.escape(str(error.get("error_type", "error")))
        message = html.escape(str(error.get("message", "")))
        return (
            f'<div class="oe-tool-out oe-tool-failed"><p><b>✗ {name}</b> failed ({kind}) · '
            f"{html.escape(status)}</p><pre>{message}</pre></div>"
        )
    value = tool_value(obs.get("result") or {})
    shown = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return (
        f'<div class="oe-tool-out"><p><b>✓ {name}</b> · {html.escape(status)}</p>'
        f"<pre>{html.escape(shown)}</pre></div>"
    )


def _error_html(message: str) -> str:
    return f'<div class="oe-tool-out oe-tool-failed"><pre>{html.escape(message)}</pre></div>'


# -- code ---------------------------------------------------------------------------------------


def code_tab(api: PlaygroundAPI, example: str = CODE_EXAMPLE) -> None:
    """Draw a Python editor, a Run button, and stdout / stderr / exit code under it."""
    editor = gr.Code(value=example, language="python", label="Python", elem_id="oe-code")
    run = gr.Button("▶ Run", variant="primary", elem_id="oe-code-run")
    status = gr.HTML(elem_id="oe-code-status")
    stdout = gr.Textbox(label="stdout", lines=6, interactive=False, elem_id="oe-code-stdout")
    stderr = gr.Textbox(label="stderr", lines=4, interactive=False, elem_id="oe-code-stderr")

    async def on_run(source: str, request: gr.Request):
        data = await api.step(request, {"code": source or ""})
        obs = data.get("observation") or {}
        return (
            await api.stage_html(request),
            run_status_html(obs.get("exit_code"), data.get("reward")),
            obs.get("stdout", ""),
            obs.get("stderr", ""),
        )

    run.click(on_run, [editor], [api.stage, status, stdout, stderr], show_progress="minimal")


def run_status_html(exit_code: Any, reward: Any) -> str:
    ok = exit_code == 0
    css = "oe-ok" if ok else "oe-error"
    text = f"exit code {exit_code} · reward {reward}"
    return f'<span class="{css}">{"✓" if ok else "✗"} {html.escape(text)}</span>'
