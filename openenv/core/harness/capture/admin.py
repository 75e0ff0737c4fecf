"""The operator's side of the proxy over HTTP: mint a session, read or close its capture.

Served only when the proxy is given an admin token, and only to a caller presenting it
(``Authorization: Bearer <token>``). Agents never see this token; their key is a session id.
A session opened with ``sampling`` (a training policy: ``{"temperature": 0.8}``) or
``eval_sampling`` (an eval run's: temperature, top_p, top_k; eval only) has it pinned on each
of its calls.

    POST   /capture/sessions                         {"label", "sampling" | "eval_sampling"}
                                                     -> {"session_id": ...}
    GET    /capture/sessions/{id}                    the capture so far (CaptureResult)
    GET    /capture/sessions/{id}/training_trace     the TrainingTrace (409 when eval only)
    DELETE /capture/sessions/{id}                    close it (its key stops working)
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from openenv.core.harness.capture.proxy import CaptureProxy
from openenv.core.harness.capture.result import CaptureResult, EvalCaptureError
from openenv.core.harness.capture.sessions import SessionLimit


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "code": status}}, status)


def _result_json(result: CaptureResult) -> Response:
    return Response(result.model_dump_json(), media_type="application/json")


def admin_router(proxy: CaptureProxy, token: str) -> APIRouter:
    """The admin routes, each refusing a caller without ``token``."""
    router = APIRouter(prefix="/capture/sessions")

    def allowed(request: Request) -> bool:
        given = request.headers.get("authorization", "")
        return secrets.compare_digest(given.encode(), f"Bearer {token}".encode())

    def refused() -> JSONResponse:
        return _error(401, "the capture admin API needs the proxy's admin token")

    def missing(session_id: str) -> JSONResponse:
        return _error(404, f"no capture session {session_id[:100]!r}")

    @router.post("", response_model=None)
    async def open_session(request: Request) -> Response:
        if not allowed(request):
            return refused()
        try:
            body: Any = await request.json() if await request.body() else {}
        except ValueError:
            return _error(400, 'body must be JSON: {"label": "..."}')
        body = body if isinstance(body, dict) else {}
        label = str(body.get("label", ""))
        try:
            session_id = proxy.open_session(
                label, body.get("sampling"), eval_sampling=body.get("eval_sampling")
            )
        except SessionLimit as exc:
            return _error(429, str(exc))
        except ValueError as exc:  # a sampling policy that is not a training one
            return _error(400, str(exc))
        return JSONResponse({"session_id": session_id, "capture": proxy.level.label})

    @router.get("/{session_id}", response_model=None)
    async def read(session_id: str, request: Request) -> Response:
        if not allowed(request):
            return refused()
        try:
            return _result_json(proxy.result(session_id))
        except KeyError:
            return missing(session_id)

    @router.get("/{session_id}/training_trace", response_model=None)
    async def trace(session_id: str, request: Request) -> Response:
        if not allowed(request):
            return refused()
        try:
            result = proxy.result(session_id)
        except KeyError:
            return missing(session_id)
        try:
            trace = result.to_training_trace()
        except EvalCaptureError as exc:
            return _error(409, str(exc))
        return Response(trace.model_dump_json(), media_type="application/json")

    @router.delete("/{session_id}", response_model=None)
    async def close(session_id: str, request: Request) -> Response:
        if not allowed(request):
            return refused()
        try:
            return _result_json(proxy.close_session(session_id))
        except KeyError:
            return missing(session_id)

    return router
