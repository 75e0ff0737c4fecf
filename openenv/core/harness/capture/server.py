"""The capture proxy on the wire: four dialects' routes, the session key check, bounds.

Routes (a base URL of ``<proxy>/v1`` serves OpenAI and Anthropic clients; ``<proxy>`` serves
Google's): ``POST /v1/chat/completions``, ``POST /v1/responses``, ``POST /v1/messages``,
``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent`` (also under
``/v1/models/``), ``GET /v1/models``.
The key an agent sends (``Authorization: Bearer``, ``x-api-key`` or ``x-goog-api-key``/``?key=``)
must be a live capture session id; anything else is 401. Bodies over the limit are 413; other
paths are 404.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from openenv.core.harness.capture.admin import admin_router
from openenv.core.harness.capture.dialects import DIALECTS, Dialect, DialectError
from openenv.core.harness.capture.proxy import CaptureProxy
from openenv.core.harness.capture.sessions import CaptureSession, SessionLimit
from openenv.core.harness.capture.upstream import UpstreamError

ROUTES = (
    "POST /v1/chat/completions, POST /v1/responses, POST /v1/messages, "
    "POST /v1beta/models/{model}:generateContent|streamGenerateContent (or /v1/models/...), "
    "GET /v1/models"
)


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        self.status, self.message = status, message


def _key(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return (
        request.headers.get("x-api-key")
        or request.headers.get("x-goog-api-key")
        or request.query_params.get("key")
    )


def _session(proxy: CaptureProxy, request: Request) -> CaptureSession:
    session = proxy.sessions.get(_key(request))
    if session is None:
        raise _Refused(
            401,
            "unknown capture session: the API key must be the capture session id minted for "
            "this rollout (it is refused once the rollout has ended)",
        )
    return session


async def _body(proxy: CaptureProxy, request: Request) -> dict[str, Any]:
    limit = proxy.max_body_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _Refused(413, f"request body over the proxy's limit of {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _Refused(413, f"request body over the proxy's limit of {limit} bytes")
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks) or b"null")
    except ValueError as exc:
        raise _Refused(400, f"request body is not JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise _Refused(400, "request body must be a JSON object")
    return body


async def _serve(
    proxy: CaptureProxy,
    request: Request,
    dialect: Dialect,
    *,
    model: str | None = None,
    stream: bool | None = None,
) -> Response:
    try:
        session = _session(proxy, request)
        body = await _body(proxy, request)
        call = dialect.to_chat(body, path_model=model)
        if stream is not None:
            call.stream = stream
        if call.stream:
            events = await proxy.handle_stream(session, dialect, call)
            return StreamingResponse(events, media_type="text/event-stream")
        answer = await proxy.handle(session, dialect, call)
    except _Refused as exc:
        return JSONResponse(dialect.error(exc.status, exc.message), exc.status)
    except DialectError as exc:
        return JSONResponse(dialect.error(400, f"invalid {dialect.name} request: {exc}"), 400)
    except SessionLimit as exc:
        return JSONResponse(dialect.error(429, str(exc)), 429)
    except UpstreamError as exc:
        return JSONResponse(dialect.error(exc.status, exc.message), exc.status)
    return JSONResponse(dialect.reply(answer.reply, answer.call))


def create_capture_app(proxy: CaptureProxy, *, admin_token: str | None = None) -> FastAPI:
    """The proxy's ASGI app; with ``admin_token``, also the operator's session routes
    (:mod:`openenv.core.harness.capture.admin`)."""
    app = FastAPI(title="openenv capture proxy", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.proxy = proxy
    if admin_token:
        app.include_router(admin_router(proxy, admin_token))

    @app.post("/v1/chat/completions", response_model=None)
    async def chat(request: Request) -> Response:
        return await _serve(proxy, request, DIALECTS["chat"])

    @app.post("/v1/responses", response_model=None)
    async def responses(request: Request) -> Response:
        return await _serve(proxy, request, DIALECTS["responses"])

    @app.post("/v1/messages", response_model=None)
    async def messages(request: Request) -> Response:
        return await _serve(proxy, request, DIALECTS["messages"])

    @app.post("/v1beta/models/{target}", response_model=None)
    @app.post("/v1/models/{target}", response_model=None)
    async def generate(target: str, request: Request) -> Response:
        google = DIALECTS["generateContent"]
        model, _, action = target.partition(":")
        if action not in ("generateContent", "streamGenerateContent"):
            return JSONResponse(google.error(404, f"unknown action {action!r}; {ROUTES}"), 404)
        return await _serve(
            proxy, request, google, model=model, stream=action == "streamGenerateContent"
        )

    @app.get("/v1/models", response_model=None)
    async def models(request: Request) -> Response:
        try:
            _session(proxy, request)
        except _Refused as exc:
            return JSONResponse(DIALECTS["chat"].error(exc.status, exc.message), exc.status)
        name = proxy.upstream.model or "upstream"
        return JSONResponse({"object": "list", "data": [{"id": name, "object": "model"}]})

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "healthy", "capture": proxy.level.label}

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    async def unknown(path: str) -> JSONResponse:
        message = f"unknown path /{path[:200]}: the capture proxy serves {ROUTES}"
        return JSONResponse(DIALECTS["chat"].error(404, message), 404)

    return app
