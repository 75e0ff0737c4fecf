"""The playground for a remote server, served by this process (``openenv playground URL``).

:class:`RemotePlayground` is an ASGI app. Once the remote answers :func:`~.probe.describe`, it
builds an ordinary server with :func:`openenv.server.create_app` around
:func:`~.environment.remote_environment` (so the page, the stage, the forms and the sessions
are the ones every environment gets) and hands it every request. Until then, and whenever the
remote cannot be described, it answers with a page that says why and retries on its own, at
most once per ``retry_s``; nothing blocks while a remote is slow. The catalog mounts one per
remote server it lists (:func:`remotes_from`).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import math
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
from starlette.types import Receive, Scope, Send

from openenv.core.registry import EnvPackage, Manifest
from openenv.server import create_app
from openenv.web.remote.environment import remote_environment
from openenv.web.remote.models import RemoteObservation, RemoteState, action_model
from openenv.web.remote.probe import Description, Remote, RemoteUnavailable, describe

RETRY_S = 5.0
HEALTH_TTL_S = 10.0
HEALTH_TIMEOUT_S = 3.0
REMOTES_ENV_VAR = "OPENENV_REMOTES"  # remote servers for the catalog: a file, or a list


class RemotePlayground:
    """The playground of one remote server, built when the remote first answers."""

    def __init__(
        self,
        remote: Remote,
        *,
        retry_s: float = RETRY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.remote = remote
        self.retry_s = retry_s
        self.clock = clock
        self.app: Any = None
        self.description: Description | None = None
        self.error: str | None = None
        self._tried_at = -math.inf
        self._lock = asyncio.Lock()
        self._stack = contextlib.AsyncExitStack()
        self._health: tuple[float, dict[str, Any]] | None = None

    @contextlib.asynccontextmanager
    async def running(self, probe: bool = True) -> AsyncIterator[RemotePlayground]:
        """Serve: describe the remote now when ``probe`` (a failure is kept and shown, never
        raised), else on the first request; on exit, close every session on it."""
        try:
            if probe:
                await self.ready()
            yield self
        finally:
            await self._stack.aclose()

    async def health(self) -> dict[str, Any]:
        """Whether the remote answers ``/health`` now (asked at most every ``HEALTH_TTL_S``):
        ``{"status": "up" | "down", "detail", "url"}``, for the catalog's card."""
        now = self.clock()
        if self._health is None or now - self._health[0] >= HEALTH_TTL_S:
            detail, status = "", "up"
            try:
                async with httpx.AsyncClient(timeout=HEALTH_TIMEOUT_S) as http:
                    answer = await http.get(
                        f"{self.remote.url}/health", headers=self.remote.headers
                    )
                if answer.status_code != 200:
                    status, detail = "down", f"/health answered HTTP {answer.status_code}"
            except httpx.HTTPError as exc:
                status, detail = "down", f"{type(exc).__name__}: {exc}"[:300]
            self._health = (now, {"status": status, "detail": detail, "url": self.remote.url})
        return self._health[1]

    async def ready(self) -> Any:
        """The built app, or ``None`` while the remote cannot be described (see ``error``)."""
        if self.app is not None:
            return self.app
        async with self._lock:
            if self.app is None and self.clock() - self._tried_at >= self.retry_s:
                self._tried_at = self.clock()
                try:
                    description = await describe(self.remote)
                except RemoteUnavailable as exc:
                    self.error = str(exc)
                else:
                    self.app = await self._build(description)
                    self.description, self.error = description, None
        return self.app

    async def _build(self, description: Description) -> Any:
        env_cls = remote_environment(description)
        app = create_app(
            env_cls,
            action_model(description.action_schema, f"{description.name}Action"),
            RemoteObservation,
            state_cls=RemoteState,
            title=f"{description.name} (remote) · OpenEnv playground",
            package=_package(description),
        )
        app.state.openenv.web["client_url"] = self.remote.url  # the Python tab's base_url
        await self._stack.enter_async_context(app.router.lifespan_context(app))
        return app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(self, receive, send)
            return
        app = await self.ready()
        if app is not None:
            await app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1013, "reason": "remote unavailable"})
        else:
            await _unavailable_page(self, send)


async def _lifespan(playground: RemotePlayground, receive: Receive, send: Send) -> None:
    """Serve the ASGI lifespan protocol when this app is the server's own (not mounted)."""
    async with contextlib.AsyncExitStack() as stack:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await stack.enter_async_context(playground.running())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await stack.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _unavailable_page(playground: RemotePlayground, send: Send) -> None:
    url = html.escape(playground.remote.url)
    why = html.escape(playground.error or "not asked yet")
    retry = max(1, round(playground.retry_s))
    body = (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<meta http-equiv='refresh' content='{retry}'><title>Remote unavailable</title>"
        "<style>body{font:16px system-ui,sans-serif;max-width:42rem;margin:4rem auto;"
        "padding:0 1rem;color:#1e293b}code{background:#f1f5f9;padding:.1em .3em}</style>"
        f"</head><body><h1>The remote server is unavailable</h1><p><code>{url}</code></p>"
        f"<p class='oe-remote-error'>{why}</p><p>This page tries again every {retry} s.</p>"
        "</body></html>"
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"retry-after", str(retry).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _package(description: Description) -> EnvPackage:
    """The remote's /metadata as a package: its name, description, tags, version, README."""
    meta = description.metadata
    tags = meta.get("tags") if isinstance(meta.get("tags"), list) else []
    manifest = Manifest(
        name=_slug(description.name),
        title=f"{description.name} (remote)",
        description=str(meta.get("description") or f"served by {description.remote.url}"),
        version=meta.get("version") if isinstance(meta.get("version"), str) else None,
        tags=("remote", *(str(t) for t in tags[:12])),
        emoji="🛰️",
        author=meta.get("author") if isinstance(meta.get("author"), str) else None,
        documentation_url=meta.get("documentation_url")
        if isinstance(meta.get("documentation_url"), str)
        else None,
    )
    readme = meta.get("readme_content")
    return EnvPackage(
        None, manifest, _cache={"readme": readme if isinstance(readme, str) else None}
    )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_") or "remote"


# -- the catalog's list of remote servers -----------------------------------------------------


def remotes_from(spec: str | None = None) -> list[Remote]:
    """The remote servers ``spec`` lists (default ``$OPENENV_REMOTES``): a path to a file, or
    the entries themselves separated by commas. One entry per line of the file (``#`` starts a
    comment): ``[name=]URL-or-owner/space [token_env=VAR]``, where ``VAR`` names the environment
    variable holding that remote's token (default ``$OPENENV_REMOTE_TOKEN``)."""
    spec = os.environ.get(REMOTES_ENV_VAR, "") if spec is None else spec
    if not spec.strip():
        return []
    path = Path(spec).expanduser()
    lines = path.read_text().splitlines() if path.is_file() else spec.split(",")
    remotes, names = [], set()
    for line in lines:
        entry = line.split("#", 1)[0].split()
        if not entry:
            continue
        name, target = _named(entry[0])
        options = dict(part.split("=", 1) for part in entry[1:] if "=" in part)
        remote = Remote.of(target, name=name, token_env=options.get("token_env"))
        slug = remote_slug(remote)
        if slug in names:
            raise ValueError(f"two remote servers are named {slug!r}: name them (name=URL)")
        names.add(slug)
        remotes.append(remote)
    return remotes


def _named(entry: str) -> tuple[str | None, str]:
    """``"pong=https://..."`` → ``("pong", "https://...")``; a bare target has no name."""
    name, sep, target = entry.partition("=")
    if sep and re.fullmatch(r"[A-Za-z][\w-]*", name):
        return name, target
    return None, entry


def remote_slug(remote: Remote) -> str:
    """The remote's name in the catalog's paths (``/remote/<slug>/``)."""
    if remote.name:
        return _slug(remote.name)
    url = httpx.URL(remote.url)
    return _slug(f"{url.host}_{url.port}" if url.port else str(url.host))
