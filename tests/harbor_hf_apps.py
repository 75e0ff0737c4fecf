"""A fake Hugging Face router for the "Hugging Face" model choice, and the Harbor server the
browser test opens on it (``uvicorn tests.harbor_hf_apps:app`` with ``$OPENENV_HF_ROUTER_URL``
set to a running :func:`fake_router`).

The fake answers ``GET /v1/models`` in the router's format (models, each with its providers'
status, context length, price and tool support) and ``/v1/chat/completions`` with the shipped
scripted engine, which writes hello-file's answer; it refuses any call without
``Authorization: Bearer <token>`` (401, as the router does) and keeps the keys it was sent.

The server is a public one's (no machine token: a visitor pastes one), with the shipped tasks.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

TOKEN = "hf_visitorTokenForTheFakeRouter0123456"
ANSWER = "printf 'Hello, Harbor!\\n' > hello.txt"
MODELS: dict[str, Any] = {
    "object": "list",
    "data": [
        {"id": "Qwen/Qwen3-Coder-30B-A3B-Instruct", "object": "model", "owned_by": "Qwen",
         "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
         "providers": [
             {"provider": "nebius", "status": "live", "context_length": 262144,
              "pricing": {"input": 0.1, "output": 0.3}, "supports_tools": True},
             {"provider": "scaleway", "status": "live", "context_length": 131072,
              "pricing": {"input": 0.2, "output": 0.8}, "supports_tools": True},
             {"provider": "novita", "status": "staging", "context_length": 65536},
         ]},
        {"id": "meta-llama/Llama-3.1-8B-Instruct", "object": "model",
         "providers": [{"provider": "cerebras", "status": "live", "context_length": 32768,
                        "pricing": {"input": 0.1, "output": 0.1}, "supports_tools": False}]},
        {"id": "black-forest-labs/FLUX.1-dev", "object": "model",
         "architecture": {"output_modalities": ["image"]},
         "providers": [{"provider": "fal-ai", "status": "live"}]},
    ],
}  # fmt: skip


def fake_router(token: str = TOKEN, seen: list[str] | None = None) -> Any:
    """The fake router app; every Authorization header it is sent goes to ``seen``."""
    from openenv.core.harness.engine import Engine, create_engine_app
    from openenv.core.harness.engine.script import bash_policy

    engine = create_engine_app(Engine(script=bash_policy([ANSWER])))
    keys = seen if seen is not None else []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await engine(scope, receive, send)
        request = Request(scope)
        keys.append(request.headers.get("authorization", ""))
        if request.url.path == "/v1/models":  # the router lists its models to anyone
            return await JSONResponse(MODELS)(scope, receive, send)
        if request.headers.get("authorization") != f"Bearer {token}":
            refused = JSONResponse({"error": "Invalid credentials in Authorization header"}, 401)
            return await refused(scope, receive, send)
        await engine(scope, receive, send)

    return app


def _harbor_app() -> Any:
    from openenv.core.harness.tasks import load_tasks, shipped_tasks
    from openenv.harbor import Endpoints, HarborService
    from openenv.harbor.app import create_harbor_app

    service = HarborService({"shipped": load_tasks(shipped_tasks())}, Endpoints())
    return create_harbor_app(service, allow_hub_add=False, allow_urls=False,
                             allow_machine_token=False)  # fmt: skip


def __getattr__(name: str) -> Any:  # the server is built when uvicorn asks for it
    if name == "app":
        globals()["app"] = built = _harbor_app()
        return built
    raise AttributeError(name)


__all__ = ["MODELS", "TOKEN", "fake_router"]
