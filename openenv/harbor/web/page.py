"""The Harbor UI's four tabs (Tasks, Run a task, Runs, Setup), their shared state and the
Setup tab.

(No ``from __future__ import annotations`` in the modules with handlers: Gradio finds a
``gr.SelectData`` parameter by its evaluated annotation.)
"""

import asyncio
from collections.abc import Callable
from typing import Any

import gradio as gr

from openenv.harbor.service import HarborService
from openenv.harbor.web import run_card, runs_tab, tasks_tab
from openenv.harbor.web.downloads import Downloads
from openenv.harbor.web.hub_adds import HubAdds
from openenv.harbor.web.setup import capabilities, setup_html
from openenv.harbor.web.style import CSS

FAST: dict[str, Any] = {"concurrency_limit": None, "show_progress": "hidden"}
NOBODY = "\0nobody"  # the viewer of a request without a client: owns no run


class Ui:
    """The components the tabs share (each tab module adds its own as it builds them)."""

    def __init__(
        self,
        service: HarborService,
        downloads: Downloads,
        links: str | None = None,
        hub: HubAdds | None = None,
        owner_of: Callable[[Any], str | None] | None = None,
    ) -> None:
        self.service = service
        self.downloads = downloads
        self.links = links  # the run routes' URL relative to the page, when downloads are links
        self.hub = hub  # adds datasets from the Hub (None: the server does not allow it)
        self.owner_of = owner_of  # ServerContext.owner_of: an ASGI scope's client

    def viewer_of(self, request: Any) -> str | None:
        """Whose runs the page of ``request`` (a ``gr.Request``) shows: its client's
        (``ServerContext.owner_of``), every run for the operator (None). A request without
        an HTTP scope sees no run."""
        scope = getattr(getattr(request, "request", request), "scope", None)
        if scope is None or self.owner_of is None:
            return NOBODY if self.owner_of is not None else None
        return self.owner_of(scope)

    def __setattr__(self, name: str, value: Any) -> None:  # each tab adds its components
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:  # a component a tab has not built: a bug here
        raise AttributeError(f"the Harbor UI has no component {name!r} (yet)")


def build(
    service: HarborService,
    downloads: Downloads,
    links: str | None = None,
    hub: HubAdds | None = None,
    owner_of: Callable[[Any], str | None] | None = None,
) -> Ui:
    """Lay out the four tabs and wire their events; return the shared components
    (``links``: the run routes, relative to the page, that downloads link to; ``hub``: adds
    datasets from the Hub, None when the server does not allow it; ``owner_of``: whom a
    request's scope counts against, whose runs it sees — None: every visitor sees every run)."""
    ui = Ui(service, downloads, links, hub, owner_of)
    gr.HTML(f"<style>{CSS}</style>", elem_id="hb-style")
    ui.task = gr.State(None)  # (split, index) of the task open in the Tasks tab
    ui.run = gr.State(None)  # the run open in the Runs tab
    ui.sent = gr.State("")  # the runs list and run view last sent (unchanged ones are skipped)
    with gr.Tabs(selected="tasks", elem_id="hb-tabs") as ui.tabs:
        with gr.Tab("Tasks", id="tasks", elem_id="hb-tab-tasks") as ui.tasks_tab:
            tasks_tab.build(ui)
        with gr.Tab("Run a task", id="run", elem_id="hb-tab-run") as ui.run_tab:
            run_card.build(ui)
        with gr.Tab("Runs", id="runs", elem_id="hb-tab-runs") as ui.runs_tab:
            runs_tab.build(ui)
        with gr.Tab("Setup", id="setup", elem_id="hb-tab-setup") as ui.setup_tab:
            build_setup(ui)
    tasks_tab.wire(ui)
    run_card.wire(ui)
    runs_tab.wire(ui)
    wire_setup(ui)
    return ui


def build_setup(ui: Ui) -> None:
    gr.HTML(
        '<p class="hb-note">What this server can run: its model endpoint, the sandboxes, the '
        "datasets and the agents.</p>"
    )
    ui.setup_box = gr.HTML('<p class="hb-empty">Looking…</p>', elem_id="hb-setup")
    with gr.Row():
        ui.setup_refresh = gr.Button(
            "↻ Check again", size="sm", scale=0, min_width=140, elem_id="hb-setup-refresh"
        )


def wire_setup(ui: Ui) -> None:
    async def show() -> str:
        return setup_html(await asyncio.to_thread(capabilities, ui.service))

    async def fresh() -> str:
        return setup_html(await asyncio.to_thread(capabilities, ui.service, True))

    ui.setup_tab.select(show, None, ui.setup_box, **FAST)
    ui.setup_refresh.click(fresh, None, ui.setup_box, **FAST)
