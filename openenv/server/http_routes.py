"""HTTP routes: /health, /metadata, /schema and one-shot /reset, /step, /state.

One-shot like the reference: each call builds a fresh environment through the session manager
(counted against capacity) and closes it. A real episode lives on /ws.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from openenv.core.errors import InvalidAction, OpenEnvError
from openenv.core.serialization import (
    load_untrusted,
    model_from_wire,
    observation_to_wire,
    state_to_wire,
)
from openenv.server.auth import check_bearer
from openenv.server.context import ServerContext
from openenv.server.limits import read_body
from openenv.server.protocol import FEATURES


def _http_observation(obs: Any) -> dict[str, Any]:
    # Same body as the reference's HTTP responses: reward as a float, metadata always present.
    payload = observation_to_wire(obs)
    reward = payload["reward"]
    payload["reward"] = float(reward) if reward is not None else None
    payload["metadata"] = payload.get("metadata")
    return payload


def context(request: Request) -> ServerContext:
    return request.app.state.openenv


async def health() -> dict[str, str]:
    return {"status": "healthy"}


async def metadata(request: Request) -> dict[str, Any]:
    ctx = context(request)
    m = ctx.manifest
    return {
        "name": m.name,
        "description": m.description,
        "readme_content": ctx.package.readme,
        "version": m.version,
        "author": m.author,
        "documentation_url": m.documentation_url,
        "tags": list(m.tags),
    }


async def schema(request: Request) -> dict[str, Any]:
    ctx = context(request)
    return {
        "action": ctx.action_cls.model_json_schema(),
        "observation": ctx.observation_cls.model_json_schema(),
        "state": ctx.state_cls.model_json_schema(),
    }


async def features(request: Request) -> dict[str, Any]:
    """What this server offers beyond the reference protocol (``openenv playground`` reads
    it): the ``view`` message on /ws, and the JSON schema of the reset options."""
    env_cls = context(request).env_cls
    return {
        "server": "openenv-playground",
        "features": list(FEATURES),
        "reset": env_cls.reset_schema() if env_cls is not None else None,
    }


async def _body(request: Request, route: str) -> Any:
    """The request's JSON body (``None`` when empty), read as anything anyone may send: bytes
    that are not UTF-8 JSON, or nest too deep, are refused with a 422 saying so."""
    raw = await read_body(request, f"the body of {route}")
    if not raw.strip():
        return None
    try:
        return load_untrusted(raw)
    except ValueError as exc:
        raise InvalidAction(f"the body of {route} is {exc}") from None


async def reset(request: Request) -> dict[str, Any]:
    ctx = _authorized(request)
    body = await _body(request, "/reset")
    if body is not None and not isinstance(body, dict):
        raise InvalidAction("the body of /reset must be a JSON object of reset options")
    session = await ctx.manager.open("http", owner=ctx.owner_of(request.scope))
    try:
        return _http_observation(await ctx.manager.reset(session, **(body or {})))
    finally:
        await ctx.manager.close(session.id)


async def step(request: Request) -> dict[str, Any]:
    """One step from a fresh episode: the body's ``action``, after a reset with its ``seed``."""
    ctx = _authorized(request)
    body = await _body(request, "/step")
    if not isinstance(body, dict) or not isinstance(body.get("action"), dict):
        raise InvalidAction('the body of /step must be {"action": {...}}')
    action = model_from_wire(body["action"], ctx.action_cls)
    reset_options = {k: body[k] for k in ("seed", "episode_id") if body.get(k) is not None}
    session = await ctx.manager.open("http", owner=ctx.owner_of(request.scope))
    try:
        await ctx.manager.reset(session, **reset_options)
        return _http_observation(await ctx.manager.step(session, action))
    finally:
        await ctx.manager.close(session.id)


async def state(request: Request) -> dict[str, Any]:
    ctx = _authorized(request)
    session = await ctx.manager.open("http", owner=ctx.owner_of(request.scope))
    try:
        return state_to_wire(await ctx.manager.state(session))
    finally:
        await ctx.manager.close(session.id)


def _authorized(request: Request) -> ServerContext:
    ctx = context(request)
    check_bearer(ctx.token, request.headers.get("authorization"))
    return ctx


async def openenv_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, OpenEnvError)
    return JSONResponse({"detail": exc.message, "code": exc.code}, status_code=exc.http_status)


def _json(what: str) -> dict[str, Any]:
    """The OpenAPI description of a JSON object body (the route parses it itself)."""
    schema = {"type": "object", "description": what}
    return {"requestBody": {"content": {"application/json": {"schema": schema}}}}


def router() -> APIRouter:
    r = APIRouter()
    r.add_api_route("/health", health, methods=["GET"], tags=["health"])
    r.add_api_route("/metadata", metadata, methods=["GET"], tags=["info"])
    r.add_api_route("/schema", schema, methods=["GET"], tags=["info"])
    r.add_api_route("/features", features, methods=["GET"], tags=["simulation"])
    r.add_api_route(
        "/reset", reset, methods=["POST"], tags=["simulation"], openapi_extra=_json("reset options")
    )
    r.add_api_route(
        "/step", step, methods=["POST"], tags=["simulation"], openapi_extra=_json('{"action": ...}')
    )
    r.add_api_route("/state", state, methods=["GET"], tags=["simulation"])
    return r
