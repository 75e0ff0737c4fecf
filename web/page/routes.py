"""The playground's plain HTTP routes, next to its Gradio page at ``{path}``:

- ``GET {path}/sessions``: how many sessions the server runs (all entry points), how many of
  them are playground tabs, and the capacity, so an operator can see the page's footprint.
- ``GET {path}/export/{key}/episode.jsonl``, ``.../episode.gif`` and ``.../episode.mp4``: the
  episode of one tab (the tab's export key, read-only: it cannot act on the tab; the page
  links to them; MP4 where PyAV is installed), videos at the env's ``render_fps``, one export
  per tab and per client and a few per server at a time (:mod:`openenv.web.episode.jobs`;
  429 beyond), and each client at most ``$OPENENV_EXPORTS_PER_MIN`` (20, in bursts of 10)
  downloads and share links a minute (429 and ``Retry-After`` beyond);
  ``.../progress``: how far the tab's video is (the page's progress bar); ``.../share``: the
  episode as a link's token (:mod:`openenv.web.episode.share`) and whether it fits a URL.
- ``GET {path}/assets/<file>`` for each file of the env package's ``assets/`` folder, so the
  README's images (``assets/screenshot.png``) show in the README tab.
- ``GET /favicon.ico``: the env's emoji, unless the app serves its own.

``start_queue_on_first_request`` starts Gradio's queue when a parent app mounted the server
without running its lifespan; ``refuse_uploads`` turns Gradio's upload route off.
"""

from __future__ import annotations

import html
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from PIL import Image

from openenv.server.clients import RateLimit, env_number
from openenv.web.episode.export import episode_gif, episode_jsonl
from openenv.web.episode.jobs import RETRY_AFTER_S, Busy, Encoder
from openenv.web.episode.share import MAX_LINK_CHARS, episode_token
from openenv.web.episode.video import Progress, VideoUnavailable, env_fps, episode_mp4
from openenv.web.stage.controller import Controller
from openenv.web.stage.tabs import WebTab

EXPORTS_VAR = "OPENENV_EXPORTS_PER_MIN"
EXPORTS_PER_MIN = 20.0  # downloads and share links one client address may ask for a minute
EXPORTS_BURST = 10


def add_routes(app: FastAPI, controller: Controller, path: str) -> None:
    """The sessions, export and README asset routes of the playground at ``path``."""
    manager = controller.manager
    name = controller.ctx.manifest.name

    async def sessions() -> dict[str, Any]:
        kinds: dict[str, int] = {}
        for session in manager.sessions():
            kinds[session.kind] = kinds.get(session.kind, 0) + 1
        return {
            "active": manager.active,
            "capacity": manager.max_sessions,
            "playground_tabs": len(controller.tabs),
            "by_kind": kinds,
        }

    exports = RateLimit(env_number(EXPORTS_VAR, EXPORTS_PER_MIN), EXPORTS_BURST)

    def export_tab(tab: str, request: Request | None = None) -> WebTab:
        """The tab an export link names; 429 when its client asks for exports too often."""
        client = controller.owner_of(request) if request is not None else None
        if not exports.allow(client):
            wait = exports.retry_after_s(client)
            raise HTTPException(
                429,
                "too many exports from your address: try again in a few seconds",
                headers={"Retry-After": str(wait)},
            )
        found = controller.tabs.by_export_key(tab)
        if found is None or not found.authorized:
            raise HTTPException(404, "unknown or closed playground tab: reload the page")
        return found

    async def jsonl(tab: str, request: Request) -> PlainTextResponse:
        body = episode_jsonl(export_tab(tab, request).episode.steps)
        return PlainTextResponse(
            body, media_type="application/x-ndjson", headers=_attachment(f"{name}-episode.jsonl")
        )

    encoder = Encoder()

    async def video(tab: str, kind: str, request: Request) -> Response:
        found = export_tab(tab, request)
        frames = [p.to_png() for p in found.episode.frames if p.animates]
        pngs = [f for f in frames if f]
        fps = env_fps(found.session.env if found.session else controller.ctx.env_cls)

        def encode(progress: Progress) -> bytes | None:
            if kind == "gif":
                return episode_gif(pngs, fps)
            pixels = [np.asarray(Image.open(io.BytesIO(f)).convert("RGB")) for f in pngs]
            return episode_mp4(pixels, fps, progress)

        try:  # encoding takes a while for long episodes: never on the event loop
            data = await encoder.run(tab, encode, controller.owner_of(request))
        except VideoUnavailable as exc:
            raise HTTPException(501, str(exc)) from None
        except Busy as exc:
            raise HTTPException(
                429, str(exc), headers={"Retry-After": str(RETRY_AFTER_S)}
            ) from None
        if data is None:
            raise HTTPException(404, "this environment draws no frames or boards to animate")
        media = "image/gif" if kind == "gif" else "video/mp4"
        return Response(data, media_type=media, headers=_attachment(f"{name}-episode.{kind}"))

    async def gif(tab: str, request: Request) -> Response:
        return await video(tab, "gif", request)

    async def mp4(tab: str, request: Request) -> Response:
        return await video(tab, "mp4", request)

    async def share(tab: str, request: Request) -> dict[str, Any]:
        episode = export_tab(tab, request).episode
        reset = episode.replayable_reset
        if reset is None:
            raise HTTPException(409, "this episode's seed is unknown: it cannot be replayed")
        token = episode_token(reset, [s["action"] for s in episode.steps])
        return {"token": token, "fits": len(token) <= MAX_LINK_CHARS, "steps": len(episode.steps)}

    async def progress(tab: str) -> dict[str, Any]:
        export_tab(tab)
        return encoder.progress(tab)

    app.add_api_route(f"{path}/sessions", sessions, methods=["GET"], tags=["playground"])
    app.add_api_route(f"{path}/export/{{tab}}/episode.jsonl", jsonl, include_in_schema=False)
    app.add_api_route(f"{path}/export/{{tab}}/episode.gif", gif, include_in_schema=False)
    app.add_api_route(f"{path}/export/{{tab}}/episode.mp4", mp4, include_in_schema=False)
    app.add_api_route(f"{path}/export/{{tab}}/progress", progress, include_in_schema=False)
    app.add_api_route(f"{path}/export/{{tab}}/share", share, include_in_schema=False)
    _add_readme_assets(app, controller.ctx.package.path, path)


def _add_readme_assets(app: FastAPI, root: Path | None, path: str) -> None:
    """Serve the files of the env package's ``assets/`` folder where its README's relative
    links point once the README is shown at ``{path}/`` (e.g. ``assets/screenshot.png``).

    One route per file that exists: Gradio serves its own bundle under ``{path}/assets/`` too,
    with hashed names, so a catch-all route there would shadow it.
    """
    folder = root / "assets" if root is not None else None
    if folder is None or not folder.is_dir():
        return
    for file in sorted(p for p in folder.iterdir() if p.is_file()):
        app.add_api_route(f"{path}/assets/{file.name}", _file_route(file), include_in_schema=False)


def _file_route(file: Path) -> Callable[[], Any]:
    # A closure, not a default argument: FastAPI would expose a parameter as a query string.
    async def serve() -> FileResponse:
        return FileResponse(file)

    return serve


def _attachment(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"'}


class _StartQueueOnFirstRequest:
    """Start Gradio's queue on first use when the server's lifespan did not (a parent app that
    mounts this server without running its lifespan)."""

    def __init__(self, app: Any, blocks: gr.Blocks) -> None:
        self.app, self.blocks = app, blocks

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] in ("http", "websocket") and not self.blocks.is_running:
            self.blocks.run_startup_events()
            await self.blocks.run_extra_startup_events()
        await self.app(scope, receive, send)


class _NoUploads:
    """Gradio's page without its upload route: the playground takes no files (an episode file
    is read in the browser and sent as text), so anonymous uploads are refused, not stored."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        route = scope.get("path", "")[len(scope.get("root_path", "")) :]
        if scope["type"] == "http" and route.rstrip("/").endswith(UPLOAD_ROUTES):
            refusal = JSONResponse({"detail": "this playground takes no uploads"}, status_code=403)
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


UPLOAD_ROUTES = ("/gradio_api/upload", "/upload")


def refuse_uploads(app: FastAPI, path: str) -> None:
    """Wrap the Gradio mount at ``path`` so its upload route answers 403."""
    for route in app.router.routes:
        if getattr(route, "path", None) == path and hasattr(route, "app"):
            route.app = _NoUploads(route.app)


def start_queue_on_first_request(app: FastAPI, path: str, blocks: gr.Blocks) -> None:
    """Wrap the Gradio mount at ``path`` so its queue starts on the first request."""
    for route in app.router.routes:
        if getattr(route, "path", None) == path and hasattr(route, "app"):
            route.app = _StartQueueOnFirstRequest(route.app, blocks)


def _favicon_svg(emoji: str) -> str:
    return (
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'>"
        f"<text y='.9em' font-size='90'>{html.escape(emoji)}</text></svg>"
    )


def favicon_link(emoji: str) -> str:
    """A ``<link rel="icon">`` with the emoji as an inline SVG (no request)."""
    svg = _favicon_svg(emoji).replace("#", "%23")
    return f'<link rel="icon" href="data:image/svg+xml,{svg}">'


def add_favicon(app: FastAPI, emoji: str) -> None:
    """Browsers ask the site root for /favicon.ico before Gradio adds its icon link: answer it
    rather than log a 404 in the console (a parent app should serve its own)."""
    if any(getattr(r, "path", None) == "/favicon.ico" for r in app.router.routes):
        return
    svg = _favicon_svg(emoji)

    async def favicon() -> Response:
        return Response(svg, media_type="image/svg+xml")

    app.add_api_route("/favicon.ico", favicon, methods=["GET"], include_in_schema=False)
