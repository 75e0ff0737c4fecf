"""The catalog: every environment in ``envs/`` in one process, with a landing page at ``/``.

Each environment's own server app (API, ``/ws`` and playground) is mounted under
``/envs/<name>/``, so ``GridWorldEnv(base_url="http://host:7860/envs/grid_world")`` works and
``/envs/<name>/web/`` is its playground. Environments whose optional dependencies are missing
are listed as unavailable, with the command that installs them. Remote servers listed in
``$OPENENV_REMOTES`` get cards too (marked remote, their health asked by the page after it
loads), each with our playground in front of it under ``/remote/<name>/web/``.

Given a catalog file (``openenv catalog build``'s, or ``openenv`` 0.10's), the landing page lists
that catalog's records instead: each one installed here (among the packages given, else the
installed ones) is served as usual; the others show as unavailable, saying where they come from.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from openenv.core.errors import EnvNotFound, EnvUnavailable
from openenv.core.manifest import normalize
from openenv.core.registry import EnvPackage, Manifest, discover, find
from openenv.server.docs import serve_docs
from openenv.server.headers import security_headers
from openenv.server.ws import DirectWsApp
from openenv.web.catalog.page import render_page
from openenv.web.catalog.thumbs import Thumbnail, first_render
from openenv.web.remote.app import RemotePlayground, remote_slug, remotes_from
from openenv.web.remote.probe import Remote

log = logging.getLogger("openenv.web.catalog.app")


@dataclass
class CatalogEnv:
    """One card of the catalog: an environment and, when importable, its server app."""

    entry: EnvPackage
    app: Any = None
    reason: str = ""
    install: str | None = None
    client_import: str | None = None
    thumbnail: Thumbnail | None = field(default=None, repr=False)
    remote: RemotePlayground | None = field(default=None, repr=False)  # a remote server's card

    @property
    def available(self) -> bool:
        return self.app is not None

    @property
    def path(self) -> str:
        """Where its API is mounted: ``envs/<name>`` (local), ``remote/<name>`` (remote)."""
        return f"{'remote' if self.remote is not None else 'envs'}/{self.entry.name}"

    def summary(self) -> dict[str, Any]:
        e = self.entry
        return {
            "name": e.name,
            "title": e.title,
            "description": e.description,
            "tags": e.tags,
            "emoji": e.emoji,
            "available": self.available,
            "reason": self.reason or None,
            "install": self.install,
            "api": f"{self.path}/" if self.available else None,
            "playground": f"{self.path}/web/" if self.available else None,
            "client": self.client_import,
            "remote": self.remote.remote.url if self.remote is not None else None,
        }


def load_catalog(envs: Path | list[EnvPackage]) -> list[CatalogEnv]:
    """Import the server app of every environment of ``envs`` (a directory of environment
    packages, or the packages); note the ones whose extras are missing."""
    items = []
    for entry in discover(envs) if isinstance(envs, Path) else envs:
        try:
            items.append(CatalogEnv(entry, entry.import_app(), client_import=_client(entry)))
        except EnvUnavailable as exc:
            log.warning("%s", exc)
            items.append(CatalogEnv(entry, reason=exc.reason, install=exc.install))
    return items


def catalog_cards(catalog: Path, packages: list[EnvPackage] | None = None) -> list[CatalogEnv]:
    """A card per record of a catalog file: its package served when it is among ``packages``
    (default: the installed ones), else unavailable with the record's source as the reason.
    A file that is no complete catalog raises ``openenv.hub.catalog_file.CatalogError``."""
    from openenv.hub.catalog_read import load_catalog as read_catalog_file

    snapshot = read_catalog_file(catalog)
    local = {p.name: p for p in packages} if packages is not None else None
    cards, seen = [], set()
    for record in snapshot["entries"]:
        name = normalize(record["displayName"])
        if name in seen:
            continue
        seen.add(name)
        package = _package_named(name, local)
        if package is not None:
            cards.extend(load_catalog([package]))
            continue
        source = record["data"]["source"]
        shown = record.get("metadata", {}).get("playground", {})
        manifest = Manifest(
            name=name,
            title=shown.get("title") if isinstance(shown, dict) else None,
            description=record["data"]["description"],
            tags=tuple(record.get("tags", [])),
            emoji=(shown.get("emoji") if isinstance(shown, dict) else None) or "📦",
        )
        where = f"{source.get('id', source.get('uri'))}@{source['revision'][:12]}: {source['path']}"
        cards.append(CatalogEnv(EnvPackage(None, manifest), reason=f"not installed here ({where})"))
    return cards


def _package_named(name: str, local: dict[str, EnvPackage] | None) -> EnvPackage | None:
    if local is not None:
        return local.get(name)
    try:
        return find(name)
    except EnvNotFound:
        return None


def remote_cards(remotes: list[Remote]) -> list[CatalogEnv]:
    """A card per remote server: its playground is built when the remote first answers."""
    cards = []
    for remote in remotes:
        slug = remote_slug(remote)
        manifest = Manifest(
            name=slug,
            title=remote.name or slug,
            description=f"A remote OpenEnv server at {remote.url}",
            tags=("remote",),
            emoji="🛰️",
        )
        playground = RemotePlayground(remote)
        cards.append(CatalogEnv(EnvPackage(None, manifest), app=playground, remote=playground))
    return cards


def _client(entry: EnvPackage) -> str | None:
    """``from <pkg> import <Client>`` for the card's notebook snippet, if the package has one."""
    try:
        entry.client_class()
    except EnvNotFound:
        return None
    return entry.client_import


def create_catalog_app(
    envs: Path | list[EnvPackage] | None,
    *,
    title: str = "OpenEnv Playground",
    remotes: list[Remote] | None = None,
    catalog: Path | None = None,
) -> FastAPI:
    """A FastAPI app serving the landing page and every available environment's app, for the
    environment packages of ``envs`` (a directory of them, or a list), and a card per remote
    server of ``remotes`` (default: the ones ``$OPENENV_REMOTES`` lists, see
    :func:`openenv.web.remote.app.remotes_from`), its playground under ``/remote/<name>/web/``.

    With ``catalog`` (a catalog file; ``envs`` may be the file itself), the cards are that
    catalog's records (see :func:`catalog_cards`): served from the packages of ``envs`` when it
    is a directory or list of them, else from the installed ones."""
    if isinstance(envs, Path) and envs.is_file():
        envs, catalog = None, envs
    if catalog is not None:
        packages = discover(envs) if isinstance(envs, Path) else envs
        local = catalog_cards(catalog, packages)
    elif envs is None:
        raise ValueError("create_catalog_app needs envs (a directory or list) or catalog=FILE")
    else:
        local = load_catalog(envs)
    remote = remote_cards(remotes_from() if remotes is None else remotes)
    items = local + remote
    by_name = {item.entry.name: item for item in local}
    remote_by_name = {item.entry.name: item for item in remote}

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Starlette does not run the lifespan of mounted apps: run each one here.
        async with contextlib.AsyncExitStack() as stack:
            for item in local:
                if item.available:
                    await stack.enter_async_context(item.app.router.lifespan_context(item.app))
            for item in remote:  # asked on their first visit, never before the page is up
                await stack.enter_async_context(item.remote.running(probe=False))
            yield

    app = DirectWsApp(title=title, lifespan=lifespan, docs_url=None, redoc_url=None)
    app.response_headers = security_headers()  # CSP, nosniff, referrer, as every env server
    serve_docs(app)  # Swagger UI from this server, never a CDN
    app.state.catalog = items
    lock = asyncio.Lock()

    async def landing() -> HTMLResponse:
        await _ensure_thumbnails(items, lock)
        return HTMLResponse(render_page(title, items))

    async def health() -> dict[str, str]:
        return {"status": "healthy"}

    async def envs() -> list[dict[str, Any]]:
        return [item.summary() for item in items]

    async def thumbnail(name: str) -> Response:
        item = by_name.get(name)
        if item is None or not item.available:
            raise HTTPException(404, f"no available environment named {name!r}")
        await _ensure_thumbnails([item], lock)
        thumb = item.thumbnail
        if thumb is None or thumb.kind != "png":
            raise HTTPException(404, f"{name!r} has no picture preview ({thumb and thumb.kind})")
        return Response(thumb.data, media_type="image/png", headers=_CACHE)

    async def remote_health(name: str) -> dict[str, Any]:
        item = remote_by_name.get(name)
        if item is None or item.remote is None:
            raise HTTPException(404, f"no remote server named {name!r}")
        return await item.remote.health()

    async def favicon() -> Response:
        # Browsers ask the site root, even from a playground under /envs/<name>/web/.
        return Response(_FAVICON, media_type="image/svg+xml", headers=_CACHE)

    async def to_playground(name: str) -> RedirectResponse:
        if name not in by_name:
            raise HTTPException(404, f"no environment named {name!r}; see /api/envs")
        return RedirectResponse(f"/envs/{name}/web/")

    app.add_api_route("/", landing, methods=["GET"], include_in_schema=False)
    app.add_api_route("/health", health, methods=["GET"], tags=["health"])
    app.add_api_route("/api/envs", envs, methods=["GET"], tags=["catalog"])
    app.add_api_route("/thumbs/{name}.png", thumbnail, methods=["GET"], include_in_schema=False)
    app.add_api_route(
        "/api/remotes/{name}/health", remote_health, methods=["GET"], tags=["catalog"]
    )
    app.add_api_route("/favicon.ico", favicon, methods=["GET"], include_in_schema=False)
    app.add_api_route("/envs/{name}", to_playground, methods=["GET"], include_in_schema=False)
    for item in items:
        if item.available:
            app.mount(f"/{item.path}", item.app, name=item.path)
    return app


_CACHE = {"Cache-Control": "public, max-age=300"}
_FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
    '<text y=".9em" font-size="90">🕹️</text></svg>'
)


async def _ensure_thumbnails(items: list[CatalogEnv], lock: asyncio.Lock) -> None:
    """Compute missing thumbnails once (the first page view pays, later views are cached)."""
    async with lock:
        todo = [i for i in items if i.available and i.remote is None and i.thumbnail is None]
        results = await asyncio.gather(*(first_render(_factory(i.app)) for i in todo))
        for item, thumb in zip(todo, results, strict=True):
            item.thumbnail = thumb


def _factory(app: Any) -> Any:
    ctx = getattr(app.state, "openenv", None)
    if ctx is None:
        raise TypeError(f"{app!r} was not built by openenv.server.create_app")
    return ctx.env_factory
