"""The test engine's HTTP face: ``/v1/chat/completions`` (streaming and not), ``/v1/models``,
``/health``. ``create_engine_app(engine)`` builds it; ``python -m openenv.core.harness.engine``
serves it."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ValidationError

from openenv.core.harness.engine.core import ChatRequest, Engine, EngineError
from openenv.core.harness.engine.wire import completion_body, completion_chunks, sse

MAX_BODY_BYTES = 4 * 1024 * 1024


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status)


def create_engine_app(
    engine: Engine, *, token_ids_as_names: bool = True, token_ids: bool = True
) -> FastAPI:
    """The engine as an OpenAI-compatible app. ``token_ids_as_names`` mirrors vLLM's
    ``--return-tokens-as-token-ids`` (logprob entries read ``token_id:<id>``); ``token_ids=False``
    plays an engine that ignores ``return_token_ids`` (an eval-only endpoint)."""
    app = FastAPI(title="openenv test engine", docs_url=None, redoc_url=None)

    def name(token_id: int) -> str:
        return f"token_id:{token_id}" if token_ids_as_names else engine.token_text(token_id)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "healthy", "mode": engine.mode}

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": engine.name, "object": "model", "owned_by": "openenv-test-engine"}],
        }

    @app.post("/v1/chat/completions", response_model=None)
    async def chat(raw: Request) -> JSONResponse | StreamingResponse:
        body = await raw.body()
        if len(body) > MAX_BODY_BYTES:
            return _error(413, f"request body over {MAX_BODY_BYTES} bytes")
        try:
            request = ChatRequest.model_validate_json(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "body"
            return _error(400, f"invalid chat request: {where}: {first['msg']}")
        try:
            gen = await asyncio.to_thread(engine.generate, request)
        except EngineError as exc:
            return _error(400, str(exc))
        if not token_ids:
            request.return_token_ids = False
        model = request.model or engine.name
        if request.stream:
            chunks = sse(completion_chunks(gen, request, model, name, engine.decode))
            return StreamingResponse(chunks, media_type="text/event-stream")
        return JSONResponse(completion_body(gen, request, model, name))

    return app
