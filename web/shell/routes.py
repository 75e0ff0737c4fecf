"""The fast shell's JSON routes, next to the playground page at ``{path}``.

- ``POST {path}/shell/open`` ``{}``: open this browser tab's session (counted against the
  server's capacity, like every playground tab) and reset it; answers ``{"tab": key, "html"}``.
- ``POST {path}/shell/reset`` ``{"tab"}``: a new episode for that tab (a tab that is gone is
  opened afresh, with a new key).
- ``POST {path}/shell/act`` ``{"tab", "index"}``: press the ``index``-th legal-action button;
  ``{"tab", "values"}`` steps with the sliders at those values.
- ``POST {path}/shell/close`` ``{"tab"}``: the browser tab closed before Gradio adopted it
  (``navigator.sendBeacon``); frees the session.

A refusal the visitor should read (a full server, a locked server, a closed tab, an illegal
action) is ``{"ok": false, "error": ...}`` with status 200, like the stage's fast path, so the
browser console stays clean; malformed requests get a 400 that says what to send.

:func:`adopt` hands a shell tab to the Gradio page that loads in the same browser tab.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import Response

from openenv.web.stage.controller import Controller
from openenv.web.stage.html import stage_html
from openenv.web.stage.tabs import WebTab

# The Gradio load event's js (web/blocks.py): its result is the value of the hidden key input.
HANDOFF_JS = "() => (window.openenvShell ? window.openenvShell.handoff() : '')"
LOCKED = "This server is protected: enter its API token once the page has loaded."
GONE = "This page's session is gone: press Reset to start again."


def add_shell_routes(app: FastAPI, controller: Controller, path: str) -> None:
    """The shell's open, reset, act and close routes of the playground at ``path``."""

    async def open_tab(request: Request) -> dict[str, Any]:
        await _body(request)
        return await _open(controller)

    async def reset(request: Request) -> dict[str, Any]:
        tab = _shell_tab(controller, await _body(request))
        if tab is None:
            return await _open(controller)
        ok = await controller.reset(tab, {})
        return _answer(tab, ok)

    async def act(request: Request) -> dict[str, Any]:
        data = await _body(request)
        tab = _shell_tab(controller, data)
        if tab is None:
            return {"ok": False, "error": GONE}
        ok = await controller.press(tab, data)
        return _answer(tab, ok)

    async def close(request: Request) -> Response:
        tab = _shell_tab(controller, await _body(request))
        if tab is not None:
            await controller.close(tab)
        return Response(status_code=204)

    for name, endpoint in (("open", open_tab), ("reset", reset), ("act", act), ("close", close)):
        app.add_api_route(
            f"{path}/shell/{name}", endpoint, methods=["POST"], include_in_schema=False
        )


def adopt(controller: Controller, key: Any, session_hash: str | None) -> WebTab | None:
    """The shell tab ``key``, now the Gradio page ``session_hash``'s; ``None`` when the key is
    unknown, its session closed, or another page adopted it already (no hijacking)."""
    tab = controller.tabs.by_key(key)
    if tab is None or not session_hash or not tab.authorized:
        return None
    if tab.session_hash is not None:
        return tab if tab.session_hash == session_hash else None
    if tab.session is None or tab.session.closed:
        controller.tabs.remove(tab)
        return None
    controller.tabs.attach(tab, session_hash)
    return tab


async def _open(controller: Controller) -> dict[str, Any]:
    if controller.ctx.token is not None:
        return {"ok": False, "error": LOCKED}
    tab = controller.new_tab(None)
    if not await controller.reset(tab, {}):
        await controller.close(tab)  # a full server: no tab left behind
        return {"ok": False, "error": tab.message, "html": stage_html(tab)}
    _forget_when_closed(controller, tab)
    return {**_answer(tab, True), "tab": tab.key}


def _answer(tab: WebTab, ok: bool) -> dict[str, Any]:
    answer: dict[str, Any] = {"ok": ok, "html": stage_html(tab), "done": tab.done}
    if not ok:
        answer["error"] = tab.message
    return answer


def _shell_tab(controller: Controller, data: dict[str, Any]) -> WebTab | None:
    """The tab ``data["tab"]`` while it is still the shell's (not yet adopted by Gradio)."""
    tab = controller.tabs.by_key(data.get("tab"))
    if tab is None or tab.session_hash is not None or not tab.authorized:
        return None
    return tab


def _forget_when_closed(controller: Controller, tab: WebTab) -> None:
    """A shell tab whose session the manager reaps (idle) leaves the registry with it, unless
    a Gradio page adopted it meanwhile (that page then says the session expired)."""
    if tab.session is None:
        return

    def forget(reason: str) -> None:
        if tab.session_hash is None:
            controller.tabs.remove(tab)

    tab.session.on_close.append(forget)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        data = json.loads(raw or b"{}")
    except ValueError:
        raise HTTPException(400, 'send a JSON object such as {"tab": "<key>"}') from None
    if not isinstance(data, dict):
        raise HTTPException(400, 'send a JSON object such as {"tab": "<key>"}')
    return data
