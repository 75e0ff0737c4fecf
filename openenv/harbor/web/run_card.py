"""The run card: which task, which model (this server's endpoint, a model on Hugging Face
Inference Providers, your own URL — both probed before the run is queued — or the shipped TEST
engine, a scripted replay that is no model), which agent (harness) and which sandbox; Run queues
it and opens it in the Runs tab.

Hugging Face: the router's model list (:mod:`openenv.harbor.hf_models`) is fetched when the
visitor picks that choice, never on the page's first load; the card says whose token pays
(this machine's on a server whose visitors are its operator; otherwise the visitor's pasted
token, or its Hugging Face sign-in on a Space with OAuth).

(No ``from __future__ import annotations``: Gradio reads the handlers' annotations.)
"""

import asyncio
import html
import os
from typing import Any

import gradio as gr
import httpx
from pydantic import ValidationError

from openenv.harbor import hf_models
from openenv.harbor.endpoints import EndpointError
from openenv.harbor.service import RunRequest, ServiceError
from openenv.harbor.web import runs_tab
from openenv.harbor.web.cards import parse_task_key, task_key
from openenv.harbor.web.setup import capabilities

TEST_LABEL = "TEST engine: a scripted replay of the task's solution (not a model)"
URL_LABEL = "Your own endpoint (an OpenAI-compatible URL, probed before use)"
HF_LABEL = "Hugging Face (Inference Providers)"
HF_STYLE = (
    "<style>#hb-rc-hf-note{padding:10px 12px;background:var(--block-background-fill)}"
    "#hb-rc-hf-note p{margin:0}#hb-rc-hf-note .hb-hf-who{font-weight:600}</style>"
)


def model_choices(ui: Any) -> list[tuple[str, str]]:
    choices = []
    server = ui.service.endpoints.server
    if server is not None:
        described = server.describe()
        choices.append((f"This server's endpoint {described['label']} · {server.model}", "server"))
    choices.append((HF_LABEL, "hf"))
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
    build_hf(ui)
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


def build_hf(ui: Any) -> None:
    """The Hugging Face box: the searchable model list, the provider, whose token pays."""
    ui.hf_list = hf_models.ModelList()
    machine = machine_token_usable(ui)
    with gr.Group(visible=False, elem_id="hb-rc-hf-box") as ui.rc_hf_box:
        gr.HTML(HF_STYLE + token_note(machine, sign_in_offered()), elem_id="hb-rc-hf-note")
        ui.rc_hf_model = gr.Dropdown(
            [], value=None, label="model (type to search)", filterable=True,
            elem_id="hb-rc-hf-model", info="id · providers · context length · price per 1M tokens",
        )  # fmt: skip
        ui.rc_hf_provider = gr.Dropdown(
            [hf_models.AUTO_CHOICE], value="", label="provider",
            elem_id="hb-rc-hf-provider",
        )  # fmt: skip
        ui.rc_hf_token = gr.Textbox(
            label="Hugging Face token", type="password", max_length=hf_models.MAX_TOKEN_CHARS,
            placeholder="hf_... (used for this run, never stored)", visible=not machine,
            elem_id="hb-rc-hf-token",
        )  # fmt: skip
        if not machine and sign_in_offered():
            gr.LoginButton("Sign in with Hugging Face", elem_id="hb-rc-hf-login")


def sign_in_offered() -> bool:
    """Signing in with Hugging Face: only on a Space with OAuth (elsewhere Gradio's login
    button is a mock that signs every visitor in with this machine's account)."""
    return bool(os.environ.get("OAUTH_CLIENT_ID") and os.environ.get("SPACE_ID"))


def machine_token_usable(ui: Any) -> bool:
    """Whether a run may use this machine's token: the visitors are the operator and it has one."""
    return bool(ui.service.endpoints.machine_token and hf_models.machine_token())


def token_note(machine: bool, sign_in: bool) -> str:
    """Whose token the card's Hugging Face runs use, and so who pays."""
    if machine:
        who = "Using this machine's Hugging Face token"
        why = "model usage is billed to its account."
    else:
        who = "Your Hugging Face token"
        signed = " (or to the account you sign in with)" if sign_in else ""
        why = f"model usage is billed to the token you give{signed}; it is never stored."
    return f'<p><span class="hb-hf-who">{who}</span>: {why}</p>'


def wire_hf(ui: Any, fast: dict[str, Any]) -> None:
    async def on_kind(kind: str, picked: str | None):
        boxes = (gr.update(visible=kind == "url"), gr.update(visible=kind == "hf"))
        if kind != "hf":
            return (*boxes, gr.skip(), gr.skip())
        try:
            models = await asyncio.to_thread(ui.hf_list.get)
        except hf_models.HfModelsError as exc:
            return (*boxes, gr.update(choices=[], value=None), _error(f"No model list: {exc}"))
        if not models:
            return (*boxes, gr.update(choices=[], value=None), _error("The router lists no model."))
        choices = [(m.label(), m.id) for m in models]
        kept = picked if any(m.id == picked for m in models) else None
        return (*boxes, gr.update(choices=choices, value=kept), "")

    outputs = [ui.rc_url_box, ui.rc_hf_box, ui.rc_hf_model, ui.rc_msg]
    ui.rc_model.change(  # the list may take a moment: a spinner on it while it comes
        on_kind, [ui.rc_model, ui.rc_hf_model], outputs, concurrency_limit=None,
        show_progress="minimal", show_progress_on=ui.rc_hf_model,
    )  # fmt: skip

    async def on_model(model_id: str | None):
        try:
            found = await asyncio.to_thread(ui.hf_list.find, model_id) if model_id else None
        except hf_models.HfModelsError:
            found = None
        choices = found.provider_choices() if found else [hf_models.AUTO_CHOICE]
        return gr.update(choices=choices, value="")

    ui.rc_hf_model.change(on_model, ui.rc_hf_model, ui.rc_hf_provider, **fast)


def wire(ui: Any) -> None:
    fast: dict[str, Any] = {"concurrency_limit": None, "show_progress": "hidden"}
    wire_hf(ui, fast)

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
    hf = [ui.rc_hf_model, ui.rc_hf_provider, ui.rc_hf_token]
    inputs = [ui.rc_task, ui.rc_model, ui.rc_url, ui.rc_name, ui.rc_key, *pickers, *hf]

    async def on_run(key: str, kind: str, url: str, name: str, api_key: str, harness: str,
                     sandbox: str, hf_model: str | None, hf_provider: str | None,
                     hf_token: str, request: gr.Request,
                     oauth: gr.OAuthToken | None) -> tuple[Any, ...]:  # fmt: skip
        viewer = ui.viewer_of(request)
        if kind != "hf":
            picked = (key, kind, url, name, api_key, harness, sandbox)
            return await start(ui, *picked, viewer=viewer)
        nothing = (gr.skip(),) * (2 + len(runs_tab.outputs(ui)))
        if not hf_model:
            return (_error("Choose a Hugging Face model first."), *nothing)
        signed_in = oauth.token if oauth is not None else None
        try:
            ref = hf_models.model_ref(hf_model, hf_provider or "")
            token, source = hf_models.choose_token(
                hf_token, signed_in, machine_allowed=ui.service.endpoints.machine_token,
                can_sign_in=sign_in_offered(),
            )  # fmt: skip
        except (hf_models.HfModelsError, hf_models.HfTokenError) as exc:
            return (_error(f"Nothing was started: {exc}"), *nothing)
        picked = (key, "hf", "", ref, token, harness, sandbox)
        return await start(ui, *picked, viewer=viewer, paid_by=source)

    ui.rc_go.click(
        on_run,
        inputs,
        [ui.rc_msg, ui.tabs, ui.run, *runs_tab.outputs(ui)],
        concurrency_limit=4,  # a URL's probe waits on the network, not on this process
        show_progress="minimal",
    )


async def start(
    ui: Any, key: str, kind: str, url: str, name: str, api_key: str, harness: str, sandbox: str,
    *, viewer: str | None, paid_by: str | None = None,
) -> tuple[Any, ...]:  # fmt: skip
    """Queue the run the card describes, as ``viewer``'s; the reason on the card when it
    cannot be (``paid_by``: whose Hugging Face token a hf run uses, said when it starts)."""
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
    if kind == "hf":
        try:  # probed now: a wrong token or an unserved model is said here
            await asyncio.to_thread(ui.service.endpoints.for_hf, name, api_key)
        except EndpointError as exc:
            return (_error(f"The model did not answer the probe, nothing was started: {exc}"),
                    *nothing)  # fmt: skip
    try:
        record = await asyncio.to_thread(ui.service.start, request)
    except (ServiceError, EndpointError) as exc:
        return (_error(f"Not started: {exc}"), *nothing)
    shown = runs_tab.show(ui, record.id, "all", "", viewer)
    paid = f" on {html.escape(name)} with {html.escape(paid_by)}" if paid_by else ""
    ok = f'<span class="oe-ok">Started run {record.id}{paid}: see it in Runs.</span>'
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
