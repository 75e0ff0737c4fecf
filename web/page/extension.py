"""The API an environment's own playground tab receives (``create_app(..., gradio_builder=)``).

``gradio_builder(api)`` is called inside the custom tab of the page: create Gradio components
there (or return a ``gr.Blocks``, which is rendered in the tab). Handlers take a
``request: gr.Request`` argument and pass it to ``api`` to reach *that visitor's* session::

    def builder(api: PlaygroundAPI):
        code = gr.Code(language="python")
        run = gr.Button("Run")
        out = gr.JSON()

        async def on_run(source, request: gr.Request):
            result = await api.call(request, lambda env: env.run(source))
            return result, await api.stage_html(request)

        run.click(on_run, [code], [out, api.stage])

``api.call`` runs ``fn(env)`` in the visitor's session (one call at a time, in a worker
thread); ``api.step`` applies an action exactly like a button press (logged, redrawn);
``api.stage_html`` redraws the main view; list ``api.stage`` as an output to show it.
Errors reach the visitor as ``gr.Error`` messages with what to do next.

Do not refresh a panel on ``api.stage.change``: the stage changes on every click and every
autoplay frame, and each Gradio event is a queue round trip (~16 ms of server CPU, measured);
the page's own panels follow the stage without one (the stage's panels route). Refresh a tab's
own components from its own events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gradio as gr

from openenv.core.errors import OpenEnvError
from openenv.core.registry import Manifest
from openenv.server.context import ServerContext
from openenv.server.sessions import Session
from openenv.web.stage import messages

if TYPE_CHECKING:
    from openenv.web.stage.controller import Controller
    from openenv.web.stage.tabs import WebTab


class PlaygroundAPI:
    """Access to the visitor's session and the main view, for an environment's own tab."""

    def __init__(self, ctx: ServerContext, controller: Controller, stage: gr.HTML) -> None:
        self.ctx = ctx
        self.stage = stage
        self._controller = controller

    @property
    def manifest(self) -> Manifest:
        return self.ctx.manifest

    @property
    def action_cls(self) -> type:
        return self.ctx.action_cls

    def tab(self, request: gr.Request) -> WebTab:
        """The visitor's tab (raises gr.Error when the page has no live tab)."""
        tab = self._controller.tabs.by_hash(request.session_hash)
        if tab is None or not tab.authorized:
            raise gr.Error(messages.GONE)
        return tab

    async def session(self, request: gr.Request) -> Session:
        """The visitor's session, reset into a fresh episode first if it had expired."""
        tab = self.tab(request)
        if tab.session is None and not await self._controller.reset(tab, {}):
            raise gr.Error(tab.notice.text)
        assert tab.session is not None
        return tab.session

    async def call(self, request: gr.Request, fn: Callable[[Any], Any]) -> Any:
        """Run ``fn(env)`` in the visitor's session and return its result."""
        session = await self.session(request)
        try:
            return await self._controller.manager.call(session, fn)
        except OpenEnvError as exc:
            raise gr.Error(exc.message) from None

    async def step(
        self, request: gr.Request, action: dict[str, Any] | Any, label: str | None = None
    ) -> dict[str, Any]:
        """Apply ``action`` like a button press (``label``: what the step log shows for it);
        return the wire response."""
        tab = self.tab(request)
        data = action.model_dump(mode="json") if hasattr(action, "model_dump") else dict(action)
        if not await self._controller.step(tab, data, label):
            raise gr.Error(tab.notice.text)
        return (tab.episode.last_response or {}).get("data", {})

    async def reset(self, request: gr.Request, **options: Any) -> dict[str, Any]:
        """Start a new episode with the environment's reset options."""
        tab = self.tab(request)
        if not await self._controller.reset(tab, options):
            raise gr.Error(tab.notice.text)
        return (tab.episode.last_response or {}).get("data", {})

    async def stage_html(self, request: gr.Request) -> str:
        """The main view, redrawn from the environment's current state."""
        tab = self.tab(request)
        if tab.session is not None:
            await self._controller.redraw(tab)
        return self._controller.html(tab)
