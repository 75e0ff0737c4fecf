"""The operator's routes for the playground's demonstrations (:mod:`openenv.web.stage.demos`),
next to the page at ``{path}``; mounted only when the server keeps demonstrations.

- ``GET {path}/demos``: how many episodes are kept, their bytes, the bounds, how many the
  bounds dropped;
- ``GET {path}/demos/results.jsonl``: the kept episodes, one record a line (``openenv collect``'s
  ``results.jsonl``);
- ``GET {path}/demos/dataset.zip``: the Hugging Face dataset (parquet shards and a dataset card;
  ``datasets.load_dataset`` opens the unzipped folder);
- ``POST {path}/demos/push`` ``{"repo_id"?, "private"?}``: upload that dataset to the Hub
  (``repo_id`` defaults to ``OPENENV_DEMOS_REPO``; the token is the server's ``$HF_TOKEN``).

Visitors' episodes are the operator's to read: every route needs ``Authorization: Bearer KEY``
with ``OPENENV_DEMOS_KEY`` or the server's API token; without either set, only a direct
loopback client (no proxy header) may call them.
"""

from __future__ import annotations

import asyncio
import hmac
import re
import tempfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from openenv.core.serialization import load_untrusted
from openenv.datasets.demos import DemoStore
from openenv.datasets.hf_dataset import dataset_zip, push_dataset, write_dataset
from openenv.server.context import ServerContext

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}$")
MAX_BODY_BYTES = 4096


def add_demo_routes(app: FastAPI, ctx: ServerContext, store: DemoStore, path: str) -> None:
    """The routes above, for the demonstrations in ``store``."""

    def info() -> dict[str, Any]:
        return {"env": ctx.manifest.name, "env_version": ctx.manifest.version, "source": "demo"}

    async def summary(request: Request) -> dict[str, Any]:
        _check(request, ctx, store)
        s = store.settings
        return {
            "episodes": len(store),
            "bytes": store.bytes,
            "max_episodes": s.max_episodes,
            "max_bytes": s.max_bytes,
            "dropped": store.dropped,
        }

    async def results(request: Request) -> Response:
        _check(request, ctx, store)
        body = "".join(record.to_line() + "\n" for record in store.records())
        return Response(body, media_type="application/jsonl", headers=_attachment("results.jsonl"))

    async def zipped(request: Request) -> Response:
        _check(request, ctx, store)

        def build() -> bytes:
            with tempfile.TemporaryDirectory() as work:
                return dataset_zip(store.records(), info(), Path(work) / "dataset")

        try:
            data = await asyncio.to_thread(build)
        except ImportError as exc:  # pyarrow: the `datasets` extra
            raise HTTPException(
                501, f"the dataset needs pyarrow ({exc}); results.jsonl works"
            ) from None
        name = f"{ctx.manifest.name}-demos.zip"
        return Response(data, media_type="application/zip", headers=_attachment(name))

    async def push(request: Request) -> JSONResponse:
        _check(request, ctx, store)
        raw = await request.body()
        if len(raw) > MAX_BODY_BYTES:
            raise HTTPException(413, "send at most a repo_id and private")
        body = load_untrusted(raw or b"{}")
        body = body if isinstance(body, dict) else {}
        repo_id = body.get("repo_id") or store.settings.repo_id
        if not isinstance(repo_id, str) or not REPO_ID.match(repo_id):
            raise HTTPException(400, "send a repo_id OWNER/NAME (or set OPENENV_DEMOS_REPO)")

        def upload() -> str:
            with tempfile.TemporaryDirectory() as work:
                folder = write_dataset(store.records(), Path(work) / "dataset", info())
                return push_dataset(folder, repo_id, private=body.get("private") is True)

        try:
            url = await asyncio.to_thread(upload)
        except Exception as exc:  # the Hub refused or is unreachable: say so, keep serving
            return JSONResponse({"ok": False, "error": f"{type(exc).__name__}: {exc}"}, 502)
        return JSONResponse({"ok": True, "url": url, "episodes": len(store)})

    app.add_api_route(f"{path}/demos", summary, methods=["GET"], include_in_schema=False)
    app.add_api_route(
        f"{path}/demos/results.jsonl", results, methods=["GET"], include_in_schema=False
    )
    app.add_api_route(f"{path}/demos/dataset.zip", zipped, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{path}/demos/push", push, methods=["POST"], include_in_schema=False)


def _attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}


def _check(request: Request, ctx: ServerContext, store: DemoStore) -> None:
    """The operator only: the demos key or API token, else a direct loopback client."""
    key = store.settings.key or ctx.token
    if key is not None:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), key.encode()):
            raise HTTPException(401, "the demonstrations need Authorization: Bearer <key>")
        return
    host = request.client.host if request.client else None
    proxied = any(h in request.headers for h in ("x-forwarded-for", "forwarded", "x-real-ip"))
    if host not in LOOPBACK or proxied:
        raise HTTPException(403, "set OPENENV_DEMOS_KEY to read the demonstrations remotely")
