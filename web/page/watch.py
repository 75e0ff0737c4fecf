"""Watching live sessions: ``{path}/watch`` lists the server's sessions (web tabs and clients
alike: a notebook's or trainer's /ws sessions too) and ``{path}/watch/{id}`` follows one,
read-only, as it steps: its view as the playground draws it, its counters and its reward chart.

- ``GET {path}/watch`` and ``{path}/watch/{id}``: the two pages (no data in them: they fetch).
- ``GET {path}/watch/sessions``: ``[{"id", "watch", "kind", "episode", "steps",
  "last_reward", "total", "done", "age_s"}]``, newest first (``id``: the public id; ``watch``:
  the session's read-only watch reference, for a link to hand to someone else).
- ``GET {path}/watch/{id}/view?seen=V``: ``{"version", "episode", "steps", "total",
  "last_reward", "done", "html", "chart"}``; ``{"version"}`` alone while nothing changed since
  version ``V``.

Who may watch: the list and any session by its public id, the operator: with an API token set
(``OPENENV_API_TOKEN``), holders of it (``Authorization: Bearer``, which the pages send once
it is typed in); without one, loopback clients only (pages of this server: the origin checks
of :mod:`openenv.server.origin` refuse others), so that visitors of a public server never see
each other's episodes. Anyone else watches one session with its watch link,
``{path}/watch/<public id>.<watch key>`` (:attr:`~openenv.server.sessions.Session.watch_ref`):
a read-only capability, which attaches to nothing and acts on nothing.

What it costs the watched session: its counters are kept in its own call path anyway
(:class:`~openenv.server.sessions.Progress`, O(1) per step); its view is drawn at most once per
``REDRAW_S`` whatever the number of watchers (one drawing shared by all of them), through the
session manager like any call, between the session's own steps; its reward chart with it.
"""

from __future__ import annotations

import html
import time
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from openenv.core.errors import OpenEnvError, SessionNotFound, Unauthorized
from openenv.server.auth import check_bearer
from openenv.server.clients import client_address, quota_owner
from openenv.server.headers import content_security_policy
from openenv.server.sessions import Session
from openenv.web.drawing import picture
from openenv.web.rewards.sparkline import reward_chart_svg
from openenv.web.stage.controller import Controller
from openenv.web.static import asset

REDRAW_S = 0.25  # a watched session's view is drawn at most this often
POLL_MS = 300  # how often a watch page asks


class Watching:
    """The shared drawing of each watched session: ``(progress version, drawn at, html, reward
    chart)``."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self._drawn: dict[str, tuple[int, float, str, str]] = {}

    def operator(self, request: Request) -> bool:
        """True when this request may watch every session: a holder of the API token, or,
        on a server without one, a loopback client (a page of this server's: the origin
        checks refuse any other page). 401 when a token was sent and is wrong."""
        ctx = self.controller.ctx
        if ctx.token is not None:
            if request.headers.get("authorization") is None:
                return False
            try:
                check_bearer(ctx.token, request.headers.get("authorization"))
            except Unauthorized as exc:
                raise HTTPException(401, exc.message) from None
            return True
        host = request.client.host if request.client else None
        address = client_address(host, request.scope.get("headers") or (), ctx.proxies)
        return quota_owner(address) is None

    def allow(self, request: Request) -> None:
        """Raise 401/403 unless this request may list and watch every session."""
        if self.operator(request):
            return
        if self.controller.ctx.token is not None:
            raise HTTPException(401, "watching sessions needs the server's API token")
        raise HTTPException(
            403,
            "watching sessions is open to loopback clients only while this server has no "
            "API token: set OPENENV_API_TOKEN to watch from elsewhere, or open a session's "
            "own watch link",
        )

    def sessions(self) -> list[dict[str, Any]]:
        now = time.monotonic()
        live = [s for s in self.controller.manager.sessions() if not s.closed]
        live.sort(key=lambda s: s.created_at, reverse=True)
        return [
            {
                "id": s.public_id,
                "watch": s.watch_ref,  # a read-only link to hand to someone else
                "kind": s.kind,
                "episode": s.progress.episode,
                "steps": s.progress.steps,
                "last_reward": s.progress.last_reward,
                "total": s.progress.total,
                "done": s.progress.done,
                "age_s": round(now - s.created_at, 1),
            }
            for s in live
        ]

    async def view(self, ref: str, seen: int, *, operator: bool) -> dict[str, Any]:
        """What the watch page of ``ref`` shows (see :meth:`_session` for who may ask)."""
        session = self._session(ref, operator)
        session_id = session.id
        progress = session.progress
        if progress.version == seen:
            return {"version": seen}
        now = time.monotonic()
        drawn = self._drawn.get(session_id)
        if drawn is None or (drawn[0] != progress.version and now - drawn[1] >= REDRAW_S):
            version = progress.version
            chart = reward_chart_svg(list(progress.rewards))  # with the view: shared, not per ask
            drawn = (version, now, await self._draw(session), chart)
            self._drawn[session_id] = drawn
            self._forget_closed()
        return {
            "version": drawn[0],
            "episode": progress.episode,
            "steps": progress.steps,
            "total": progress.total,
            "last_reward": progress.last_reward,
            "done": progress.done,
            "html": drawn[2],
            "chart": drawn[3],
        }

    async def _draw(self, session: Session) -> str:
        try:  # drawn (a frame's PNG too) where the session's own calls run, between its steps
            return await self.controller.manager.call(session, _drawn)
        except OpenEnvError as exc:
            return f'<div class="oe-empty">{html.escape(exc.message)}</div>'

    def _session(self, ref: str, operator: bool) -> Session:
        """The session ``ref`` names: any by its public id for an ``operator``, otherwise
        only by its read-only watch link (:attr:`~openenv.server.sessions.Session.watch_ref`)
        or its owner's handle."""
        try:
            return self.controller.manager.watched(ref, operator=operator)
        except SessionNotFound:
            raise HTTPException(404, "no such live session: it may have closed") from None

    def _forget_closed(self) -> None:
        live = {s.id for s in self.controller.manager.sessions()}
        for gone in set(self._drawn) - live:
            del self._drawn[gone]


def _drawn(env: Any) -> str:
    view = env.render()
    if view is None:
        return '<div class="oe-empty">This environment draws nothing.</div>'
    return picture(view).html()


def add_watch_routes(app: FastAPI, controller: Controller, path: str) -> None:
    """The watch pages and their data routes at ``{path}/watch`` (see the module docstring)."""
    watching = controller.ctx.web["watching"] = Watching(controller)
    name = html.escape(controller.ctx.manifest.display_title)

    protected = controller.ctx.token is not None

    async def list_page() -> HTMLResponse:
        return HTMLResponse(_page(f"Live sessions · {name}", LIST_BODY, protected))

    async def sessions(request: Request) -> list[dict[str, Any]]:
        watching.allow(request)
        return watching.sessions()

    async def watch_page(session_id: str) -> HTMLResponse:
        body = WATCH_BODY.replace("{id}", html.escape(session_id))
        title = f"Watching {html.escape(session_id.partition('.')[0])} · {name}"
        # A watch link is a read-only capability: any page may frame it (a notebook's
        # env.playground() shows it inline, from the notebook server's origin).
        framed = (
            {"content-security-policy": content_security_policy("*")} if "." in session_id else {}
        )
        return HTMLResponse(_page(title, body, protected), headers=framed)

    async def view(session_id: str, request: Request, seen: int = -1) -> Response:
        operator = watching.operator(request)
        if not operator and "." not in session_id:
            watching.allow(request)  # a bare id: the operator's; say what is missing
        # sent as it is (no response model to check it against): polled by every watcher
        return JSONResponse(await watching.view(session_id, seen, operator=operator))

    for route, endpoint in (
        ("/watch", list_page),
        ("/watch/sessions", sessions),
        ("/watch/{session_id}", watch_page),
        ("/watch/{session_id}/view", view),
    ):
        app.add_api_route(path + route, endpoint, methods=["GET"], include_in_schema=False)


def _page(title: str, body: str, protected: bool) -> str:
    """A watch page; on a ``protected`` server it asks for the token before any call."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{asset('playground.css')}{asset('watch.css')}</style>"
        f'</head><body class="oe-watch" data-protected="{int(protected)}"><main><h1>{title}</h1>'
        '<form class="oe-watch-token" hidden><label>API token '
        '<input type="password" autocomplete="off"></label><button>Watch</button></form>'
        f'<p class="oe-watch-msg" role="status"></p>{body}</main>'
        f"<script>const POLL_MS = {POLL_MS};\n{asset('watch.js')}</script></body></html>"
    )


LIST_BODY = (
    '<table class="oe-watch-list"><thead><tr><th>session</th><th>who</th><th>episode</th>'
    "<th>steps</th><th>last reward</th><th>return</th><th></th></tr></thead>"
    '<tbody><tr><td colspan="7">Loading…</td></tr></tbody></table>'
)
WATCH_BODY = (
    '<section class="oe-watched" data-session="{id}"><div class="oe-view">'
    '<div class="oe-empty">Waiting for the session…</div></div><aside>'
    '<dl class="oe-watch-counters"><dt>episode</dt><dd class="oe-w-episode">–</dd>'
    '<dt>steps</dt><dd class="oe-w-steps">–</dd><dt>last reward</dt>'
    '<dd class="oe-w-reward">–</dd><dt>return</dt><dd class="oe-w-total">–</dd>'
    '<dt>status</dt><dd class="oe-w-status">–</dd></dl><div class="oe-w-chart"></div>'
    '<p><a href="../watch">← all live sessions</a> · read-only: the session is driven by its '
    "own client.</p></aside></section>"
)
