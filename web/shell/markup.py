"""The fast shell: the playground usable before Gradio's JavaScript bundle arrives.

Gradio's page is an empty ``<gradio-app>`` until its bundle has loaded, parsed and asked the
server for its first state (about a second on a small machine). Its ``head=`` markup cannot help:
it travels in the page config and is inserted by that same bundle. So ``mount_shell`` rewrites
the HTML Gradio serves at ``{path}/``: right after ``<body>`` comes a small self-contained shell
(inline HTML, CSS and script, no request of its own) with the header, a real Reset button and
the stage (:mod:`openenv.web.stage.html`), laid over the page Gradio is still building.

The shell's stage is the Gradio page's: the same script (``assets/stage.js``) calling the same
routes (:mod:`openenv.web.stage.api`) through the same controller. The tab key lives in
``sessionStorage`` (one per browser tab); Gradio's load event hands it to the page, which adopts
that tab (:meth:`~openenv.web.stage.controller.Controller.adopt`), and the shell steps aside once
Gradio's stage is drawn. On a server with an API token the shell's Reset stays disabled: the
token form comes with Gradio.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI
from starlette.routing import get_route_path

from openenv.server.context import ServerContext
from openenv.web.page.header import header_html
from openenv.web.stage import messages
from openenv.web.stage.html import stage_html
from openenv.web.stage.tabs import WebTab
from openenv.web.static import asset

SHELL_ID = "oe-shell"


def shell_html(ctx: ServerContext) -> str:
    """The shell's markup, styles and script, for the top of the page's ``<body>``."""
    locked = ctx.token is not None
    empty = WebTab(key="", session_hash=None, authorized=not locked)
    note = html.escape(messages.LOCKED_SHELL) if locked else ""
    css = asset("shell.css")
    return (
        f'<div id="{SHELL_ID}"><style>{asset("playground.css")}{css}{forced_dark_rule(css)}</style>'
        f'<div class="oe-shell-wrap"><div class="oe-shell-head">{header_html(ctx)}</div>'
        '<div class="oe-shell-row"><div class="oe-shell-stage-col"><div class="oe-shell-bar">'
        f'<button type="button" class="oe-shell-reset"{" disabled" if locked else ""}>'
        "↺ Reset</button>"
        f'<div class="oe-shell-msg" role="status">{note}</div></div>'
        f'<div class="oe-shell-stage">{stage_html(empty)}</div></div>'
        '<div class="oe-shell-controls" aria-hidden="true"><div class="oe-shell-fold">'
        "Reset options</div></div></div></div>"
        f"<script>{{{asset('stage.js')}{asset('shell.js')}}}</script></div>"  # block-scoped
    )


def forced_dark_rule(css: str) -> str:
    """shell.css's dark-scheme block as a rule for ``data-theme="dark"`` (``?__theme=dark``)."""
    dark = r"@media \(prefers-color-scheme: dark\) \{\s*#oe-shell[^{]*\{(.*?)\}"
    block = re.search(dark, css, re.S)
    if block is None:
        raise ValueError("shell.css has no dark-scheme block for #oe-shell")
    return f'#{SHELL_ID}[data-theme="dark"] {{{block[1]}}}'


def themed(markup: bytes, query: bytes) -> bytes:
    """``markup`` with ``data-theme`` when the page was asked for with ``?__theme=dark|light``
    (Gradio then follows the parameter instead of the browser's colour scheme)."""
    theme = dict(parse_qsl(query.decode("latin-1"))).get("__theme")
    if theme not in ("dark", "light"):
        return markup
    opening = f'<div id="{SHELL_ID}">'.encode()
    return markup.replace(opening, opening[:-1] + f' data-theme="{theme}">'.encode(), 1)


def mount_shell(app: FastAPI, path: str, markup: str) -> None:
    """Insert ``markup`` into the page the Gradio app mounted at ``path`` serves."""
    for route in app.router.routes:
        if getattr(route, "path", None) == path and hasattr(route, "app"):
            route.app = _ShellInjector(route.app, markup.encode("utf-8"))


class _ShellInjector:
    """ASGI wrapper of the Gradio app: adds the shell after ``<body ...>`` in its index page."""

    def __init__(self, app: Any, markup: bytes) -> None:
        self.app, self.markup = app, markup

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or get_route_path(scope) != "/":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        body: list[bytes] = []
        markup = themed(self.markup, scope.get("query_string", b""))

        async def buffer(message: dict) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    await self._send_page(start, b"".join(body), markup, send)
            else:
                await send(message)

        await self.app(scope, receive, buffer)

    @staticmethod
    async def _send_page(start: dict, page: bytes, markup: bytes, send: Callable) -> None:
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        is_html = any(k.lower() == b"content-type" and b"text/html" in v for k, v in headers)
        encoded = any(k.lower() == b"content-encoding" for k, _ in headers)
        if start.get("status") == 200 and is_html and not encoded:
            page = insert_after_body_tag(page, markup)
        headers.append((b"content-length", str(len(page)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": page})


def insert_after_body_tag(page: bytes, markup: bytes) -> bytes:
    """``page`` with ``markup`` right after its ``<body ...>`` tag (unchanged without one)."""
    tag = page.find(b"<body")
    end = page.find(b">", tag) if tag >= 0 else -1
    if end < 0:
        return page
    return page[: end + 1] + markup + page[end + 1 :]
