"""The run card: which task, which model (this server's endpoint, your own URL — probed before
the run is queued — or the shipped TEST engine, a scripted replay that is no model), which agent
(harness) and which sandbox; Run queues it and opens it in the Runs tab.

(No ``from __future__ import annotations``: Gradio reads the handlers' annotations.)
"""

import asyncio
import html
from typing import Any

import gradio as gr
import httpx
from pydantic import ValidationError

from openenv.harbor.endpoints import EndpointError
from openenv.harbor.service import RunRequest, ServiceError
from openenv.harbor.web import runs_tab
from openenv.harbor.web.cards import parse_task_key, task_key
from openenv.harbor.web.setup import capabilities

TEST_LABEL = "TEST engine: a scripted replay of the task's solution (not a model)"
URL_LABEL = "Your own endpoint (an OpenAI-compatible URL, probed before use)"


def model_choices(ui: Any) -> list[tuple[str, str]]:
    choices = []
    server = ui.service.endpoints.server
    if server is not None:
        described = server.describe()
        choices.append((f"This server's endpoint {described['label']} · {server.model}", "server"))
    if ui.service.endpoints.allow_urls:
        choices.append((URL_LABEL, "url"))
    choices.append((TEST_LABEL, "test"))
    return choices


def task_choices(ui: Any) -> list[tuple[str, str]]:
    return [
        (f"{c['name']}  ({c['split']} #{c['index']})", task_key(c["split"], c["index"]))
        for c in ui.service.tasks()
    ]


def _labelled(problems: dict[str, str | None], ok: str) -> list[tuple[str, str]]:
    return [
        (f"{name} ({ok if p is None else 'not usable here'})", name) for name, p in problems.items()
    ]


def build(ui: Any) -> None:
    tasks = task_choices(ui)
    models = model_choices(ui)
    gr.HTML(
        '<p class="hb-note">A run goes on on the server whether or not this page stays open; '
        "the Runs tab shows it live.</p>"
    )
    ui.rc_task = gr.Dropdown(
        tasks, value=tasks[0][1] if tasks else None, label="task", elem_id="hb-rc-task"
    )
    default = "server" if ui.service.endpoints.server is not None else "test"
    ui.rc_model = gr.Radio(models, value=default, label="model", elem_id="hb-rc-model")
    no_server = (
        "" if ui.service.endpoints.server is not None
        else '<p class="hb-note">This server was started without <code>--llm-url</code>: '
        "no endpoint of its own.</p>"
    )  # fmt: skip
    gr.HTML(no_server)
    with gr.Group(visible=default == "url", elem_id="hb-rc-url-box") as ui.rc_url_box:
        ui.rc_url = gr.Textbox(
            label="endpoint URL", placeholder="http://localhost:8000/v1", max_length=2048,
            elem_id="hb-rc-url",
        )  # fmt: skip
        ui.rc_name = gr.Textbox(
            label="model name", placeholder="as the endpoint lists it (optional)",
            max_length=300, elem_id="hb-rc-name",
        )  # fmt: skip
        ui.rc_key = gr.Textbox(
            label="API key", type="password", max_length=4096, elem_id="hb-rc-key",
            placeholder="optional; used for this run, never stored",
        )  # fmt: skip
    with gr.Row():
        ui.rc_harness = gr.Dropdown(
            ["mini-swe-agent"], value="mini-swe-agent", label="agent (harness)",
            elem_id="hb-rc-harness",
        )  # fmt: skip
        ui.rc_sandbox = gr.Dropdown(
            ["process", "docker"], value="process", label="sandbox", elem_id="hb-rc-sandbox"
        )
    ui.rc_go = gr.Button("▶ Run", variant="primary", elem_id="hb-rc-go")
    ui.rc_msg = gr.HTML(elem_id="hb-rc-msg", elem_classes=["hb-msg"])


def wire(ui: Any) -> None:
    fast: dict[str, Any] = {"concurrency_limit": None, "show_progress": "hidden"}
    ui.rc_model.change(
        lambda kind: gr.update(visible=kind == "url"), ui.rc_model, ui.rc_url_box, **fast
    )

    async def choices(harness: str, sandbox: str):
        found = await asyncio.to_thread(capabilities, ui.service)
        harnesses = _labelled(found["harnesses"], "installed")
        sandboxes = _labelled(found["sandboxes"], "usable")
        return (
            gr.update(choices=harnesses, value=harness),
            gr.update(choices=sandboxes, value=sandbox),
        )

    pickers = [ui.rc_harness, ui.rc_sandbox]

    async def on_tab(task: str, harness: str, sandbox: str):
        tasks = task_choices(ui)  # the served splits may have changed since the page loaded
        kept = task if any(value == task for _, value in tasks) else None
        shown = gr.update(choices=tasks, value=kept or (tasks[0][1] if tasks else None))
        return (shown, *await choices(harness, sandbox))

    ui.run_tab.select(on_tab, [ui.rc_task, *pickers], [ui.rc_task, *pickers], **fast)

    async def run_this(key: Any, harness: str, sandbox: str):
        if key is None:
            return gr.skip(), gr.skip(), gr.skip(), gr.skip()
        picked = await choices(harness, sandbox)
        return gr.Tabs(selected="run"), gr.update(value=task_key(*key)), *picked

    ui.run_this.click(run_this, [ui.task, *pickers], [ui.tabs, ui.rc_task, *pickers], **fast)
    inputs = [ui.rc_task, ui.rc_model, ui.rc_url, ui.rc_name, ui.rc_key, *pickers]

    async def on_run(key: str, kind: str, url: str, name: str, api_key: str, harness: str,
                     sandbox: str, request: gr.Request) -> tuple[Any, ...]:  # fmt: skip
        picked = (key, kind, url, name, api_key, harness, sandbox)
        return await start(ui, *picked, viewer=ui.viewer_of(request))

    ui.rc_go.click(
        on_run,
        inputs,
        [ui.rc_msg, ui.tabs, ui.run, *runs_tab.outputs(ui)],
        concurrency_limit=4,  # a URL's probe waits on the network, not on this process
        show_progress="minimal",
    )


async def start(
    ui: Any, key: str, kind: str, url: str, name: str, api_key: str, harness: str, sandbox: str,
    *, viewer: str | None,
) -> tuple[Any, ...]:  # fmt: skip
    """Queue the run the card describes, as ``viewer``'s; the reason on the card when it
    cannot be."""
    nothing = (gr.skip(),) * (2 + len(runs_tab.outputs(ui)))
    task = parse_task_key(key)
    if task is None:
        return (_error("Choose a task first."), *nothing)
    try:
        request = RunRequest(
            split=task[0], task_index=task[1], harness=harness or "mini-swe-agent",
            sandbox=sandbox or "process", model=kind, url=(url or "").strip() or None,
            model_name=(name or "").strip() or None, api_key=api_key or None, owner=viewer,
        )  # fmt: skip
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return (_error(f"Not started: {problems}"), *nothing)
    if kind == "url" and request.url:
        silent = await asyncio.to_thread(unreachable, request.url)
        if silent:
            return (_error(f"Nothing was started: {silent}"), *nothing)
        try:  # probed now, so a wrong URL is said here, not minutes later on the run
            await asyncio.to_thread(
                ui.service.endpoints.for_url, request.url, model=request.model_name,
                api_key=request.api_key,
            )  # fmt: skip
        except EndpointError as exc:
            return (_error(f"Your endpoint did not pass the probe, nothing was started: {exc}"),
                    *nothing)  # fmt: skip
    try:
        record = await asyncio.to_thread(ui.service.start, request)
    except (ServiceError, EndpointError) as exc:
        return (_error(f"Not started: {exc}"), *nothing)
    shown = runs_tab.show(ui, record.id, "all", "", viewer)
    ok = f'<span class="oe-ok">Started run {record.id}: see it in Runs.</span>'
    return (ok, gr.Tabs(selected="runs"), record.id, *shown)


def unreachable(url: str, timeout_s: float = 10.0) -> str | None:
    """Why nothing answers at ``url`` (refused, unknown host, no answer in time); None when
    something does (whatever its status: the probe then judges the endpoint)."""
    base = url.strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        return f"{base[:100]!r} is not an http(s) URL"
    try:
        httpx.get(f"{base}/models", timeout=timeout_s)
    except httpx.HTTPError as exc:
        return f"nothing answers at {base[:300]} ({type(exc).__name__}: {str(exc)[:200]})"
    return None


def _error(text: str) -> str:
    return f'<span class="oe-error">{html.escape(text)}</span>'
