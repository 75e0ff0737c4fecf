"""``/mcp``: an environment's tools over JSON-RPC 2.0, for agents.

Three ways in, one set of tools (``env.list_tools()`` / ``env.call_tool()``, run through the
session manager so each session still runs one call at a time):

* ``POST /mcp`` with a plain JSON-RPC request (``initialize``, ``tools/list``, ``tools/call``,
  ``ping``, and the ``openenv`` 0.10.x session methods ``openenv/session/create`` and
  ``openenv/session/close``). ``params.session_id`` targets a session created that way (and
  shared with ``/ws?session_id=...``); without it the call runs on a fresh environment.
* ``{"type": "mcp", "data": <request>}`` on ``/ws``: the connection's own session.
* A standard MCP client (the official ``mcp`` SDK's streamable-HTTP transport): requests that
  carry ``Mcp-Session-Id`` or ``MCP-Protocol-Version``, ``initialize`` and ``server/discover``
  are served by the SDK itself (see :mod:`openenv.server.mcp_sdk`).

Every server mounts ``/mcp``, as ``openenv`` 0.10 does: an environment without tools answers
``tools/list`` and ``tools/call`` with the JSON-RPC error ``-32603 Environment does not support
MCP`` (and any other method with ``-32601``), never a 404, and makes no environment to say so.
``openenv/session/create`` and ``openenv/session/close`` work on every server.

MCP never reaches ``reset``, ``step`` or ``state``. In production mode
(``create_app(mode="production")`` or ``OPENENV_MODE=production``) the server serves tools and
health only: the HTTP simulation routes are absent and ``/ws`` refuses reset/step/state.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from openenv.core.errors import CapacityReached, OpenEnvError, SessionNotFound
from openenv.core.mcp import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ToolErrorType,
    is_mcp_environment,
)
from openenv.core.serialization import load_untrusted
from openenv.server.auth import check_bearer
from openenv.server.context import ServerContext
from openenv.server.limits import TooLarge, read_body
from openenv.server.sessions import Session

log = logging.getLogger("openenv.server")

MODE_ENV_VAR = "OPENENV_MODE"
MODES = ("simulation", "production")
PROTOCOL_VERSION = "2025-06-18"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000

# What a server without tools answers to tools/list and tools/call (openenv 0.10's words).
NO_MCP = "Environment does not support MCP"
_TOOL_METHODS = frozenset({"tools/list", "tools/call"})

# Requests a standard MCP client sends; the SDK answers them (stateful sessions, SSE, ...).
_SDK_HEADERS = ("mcp-session-id", "mcp-protocol-version")
_SDK_METHODS = frozenset({"initialize", "server/discover"})


def resolve_mode(mode: str | None) -> str:
    """``mode`` or ``$OPENENV_MODE`` (default ``simulation``), validated."""
    value = (mode if mode is not None else os.environ.get(MODE_ENV_VAR) or "simulation").lower()
    if value not in MODES:
        raise ValueError(f"unknown server mode {value!r}: use 'simulation' or 'production'")
    return value


def without_simulation(router: APIRouter) -> APIRouter:
    """Drop the routes tagged ``simulation`` (/reset, /step, /state) for production mode."""
    router.routes = [r for r in router.routes if "simulation" not in getattr(r, "tags", [])]
    return router


def serves_tools(ctx: ServerContext) -> bool:
    """True when the environment publishes tools (an MCPEnvironment or tool-call actions)."""
    return is_mcp_environment(ctx.env_cls) or ctx.action_cls in (CallToolAction, ListToolsAction)


class RpcError(Exception):
    """A JSON-RPC error answer."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def rpc_result(request_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def rpc_error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message, "data": data},
    }


class McpService:
    """Serves one app's tools to the three entry points described in the module docstring."""

    def __init__(self, ctx: ServerContext, *, production: bool = False) -> None:
        self.ctx = ctx
        self.manager = ctx.manager
        self.production = production
        self.has_tools = serves_tools(ctx)
        self.sdk = _load_sdk_bridge(self) if self.has_tools else None

    # -- wiring -----------------------------------------------------------------------------

    def mount(self, app: FastAPI) -> None:
        """Add ``/mcp`` (POST; GET and DELETE too for a tool env's standard MCP sessions)."""
        methods = ["GET", "POST", "DELETE"] if self.has_tools else ["POST"]
        app.router.routes.append(Route("/mcp", endpoint=self, methods=methods))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the SDK transport for the app's lifetime (use inside the app's lifespan)."""
        if self.sdk is None:
            yield
            return
        async with self.sdk.running():
            yield

    async def ws_handler(self, session: Session, data: Any) -> dict[str, Any] | None:
        """The ``mcp_handler`` of /ws: answer one JSON-RPC request on the socket's session."""
        return await self.dispatch(data, session)

    # -- HTTP -------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            check_bearer(self.ctx.token, request.headers.get("authorization"))
        except OpenEnvError as exc:
            response = JSONResponse({"detail": exc.message, "code": exc.code}, exc.http_status)
            await response(scope, receive, send)
            return
        wants_sdk = any(h in request.headers for h in _SDK_HEADERS)
        if self.has_tools and (request.method != "POST" or wants_sdk):
            await self._to_sdk(scope, receive, send, None)
            return
        try:
            body = await read_body(request, "an MCP request")
        except TooLarge as exc:
            response = JSONResponse({"detail": exc.message, "code": exc.code}, exc.http_status)
            await response(scope, receive, send)
            return
        message = _loads(body)
        sdk_method = isinstance(message, dict) and message.get("method") in _SDK_METHODS
        if self.has_tools and sdk_method:
            await self._to_sdk(scope, receive, send, body)
            return
        answer = await self.dispatch(message, None, parsed=True, owner=self.ctx.owner_of(scope))
        response = JSONResponse(answer) if answer is not None else Response(status_code=202)
        await response(scope, receive, send)

    async def _to_sdk(self, scope: Scope, receive: Receive, send: Send, body: bytes | None) -> None:
        if self.sdk is None:
            response = JSONResponse(
                rpc_error(
                    None,
                    INVALID_REQUEST,
                    "standard MCP clients need the official SDK on the server: "
                    "pip install 'openenv-playground[mcp]'",
                ),
                status_code=501,
            )
            await response(scope, receive, send)
            return
        await self.sdk.handle(scope, _replay(receive, body) if body is not None else receive, send)

    # -- JSON-RPC -----------------------------------------------------------------------------

    async def dispatch(
        self,
        message: Any,
        session: Session | None,
        *,
        parsed: bool = False,
        owner: str | None = None,
    ) -> dict[str, Any] | None:
        """Answer one JSON-RPC request (``None`` for notifications)."""
        if parsed and message is _INVALID_JSON:
            return rpc_error(None, PARSE_ERROR, "Parse error: the body is not valid JSON")
        request_id = message.get("id") if isinstance(message, dict) else None
        try:
            method, params = _check_request(message)
            if method.startswith("notifications/"):
                return None
            result = await self._answer(method, params, session, owner)
        except RpcError as exc:
            return rpc_error(request_id, exc.code, exc.message, exc.data)
        return rpc_result(request_id, result)

    async def _answer(
        self, method: str, params: dict[str, Any], session: Session | None, owner: str | None
    ) -> Any:
        if method == "openenv/session/create":
            return await self._create_session(session, owner)
        if method == "openenv/session/close":
            return await self._close_session(params, session)
        if not self.has_tools:
            if method in _TOOL_METHODS:
                raise RpcError(INTERNAL_ERROR, NO_MCP)
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        if method == "initialize":
            return self.initialize_result(params)
        if method == "ping":
            return {}
        if method == "tools/list":
            async with self._session(params, session, owner) as target:
                tools = await self._run(target, "list_tools")
            return {"tools": [_tool_wire(t) for t in tools]}
        if method == "tools/call":
            name, arguments = _call_params(params)
            async with self._session(params, session, owner) as target:
                obs = await self._run(target, "call_tool", name, arguments)
            return _call_result(obs)
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def initialize_result(self, params: dict[str, Any]) -> dict[str, Any]:
        manifest = self.ctx.manifest
        return {
            "protocolVersion": params.get("protocolVersion") or PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": manifest.name, "version": manifest.version or "0.0.0"},
        }

    async def _create_session(self, current: Session | None, owner: str | None) -> dict[str, Any]:
        if current is not None:
            return {"session_id": current.id}
        try:
            session = await self.manager.open("mcp", owner=owner)
        except CapacityReached as exc:
            m = self.manager
            data = {"active_sessions": m.active, "max_sessions": m.max_sessions}
            raise RpcError(SERVER_ERROR, exc.message, data) from None
        except OpenEnvError as exc:
            raise RpcError(SERVER_ERROR, exc.message) from None
        return {"session_id": session.id}

    async def _close_session(self, params: dict[str, Any], current: Session | None) -> Any:
        target = params.get("session_id")
        if not target:
            raise RpcError(INVALID_PARAMS, "Invalid params - 'session_id' is required")
        if current is not None and target == current.id:
            raise RpcError(INVALID_REQUEST, "close this session by closing its WebSocket")
        try:
            self.manager.get(target)
        except SessionNotFound:
            raise RpcError(INVALID_PARAMS, f"Unknown session_id: {target}") from None
        await self.manager.close(target, "closed over MCP")
        return {"session_id": target, "closed": True}

    @contextlib.asynccontextmanager
    async def _session(
        self, params: dict[str, Any], current: Session | None, owner: str | None = None
    ) -> AsyncIterator[Session]:
        """The session a tools/* call runs on: given, named by ``session_id``, or temporary."""
        if current is not None:
            yield current
            return
        named = params.get("session_id")
        if named:
            try:
                session = self.manager.get(str(named))
            except SessionNotFound:
                raise RpcError(INVALID_PARAMS, f"Unknown session_id: {named}") from None
            yield session
            return
        async with self.temporary_session(owner) as session:
            yield session

    @contextlib.asynccontextmanager
    async def temporary_session(self, owner: str | None = None) -> AsyncIterator[Session]:
        """A fresh environment for one call, closed afterwards."""
        try:
            session = await self.manager.open("mcp", owner=owner)
        except OpenEnvError as exc:
            raise RpcError(SERVER_ERROR, exc.message) from None
        try:
            yield session
        finally:
            await self.manager.close(session.id, "one-shot MCP call")

    async def _run(self, session: Session, method: str, *args: Any) -> Any:
        """``env.<method>(*args)`` through the session manager, errors as JSON-RPC errors; an
        env without that method whose actions are tool calls answers through ``step``."""
        if callable(getattr(session.env, method, None)):
            work = lambda env: getattr(env, method)(*args)  # noqa: E731
        elif self.ctx.action_cls in (CallToolAction, ListToolsAction):
            work = lambda env: _through_step(env, method, *args)  # noqa: E731
        else:
            raise RpcError(INTERNAL_ERROR, NO_MCP)
        try:
            return await self.manager.call(session, work)
        except SessionNotFound as exc:
            raise RpcError(INVALID_PARAMS, exc.message) from None
        except OpenEnvError as exc:
            raise RpcError(INTERNAL_ERROR, exc.message) from None


# -- helpers ------------------------------------------------------------------------------------

_INVALID_JSON = object()


def _loads(body: bytes) -> Any:
    try:
        return load_untrusted(body or b"null")
    except ValueError:
        return _INVALID_JSON


def _check_request(message: Any) -> tuple[str, dict[str, Any]]:
    if isinstance(message, list):
        raise RpcError(INVALID_REQUEST, "Invalid request: batches are not supported")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'Invalid request: expected {"jsonrpc": "2.0", ...}')
    method = message.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, "Invalid request: 'method' must be a non-empty string")
    params = message.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "Params must be an object")
    return method, params


def _call_params(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name = params.get("name")
    if not name or not isinstance(name, str):
        raise RpcError(INVALID_PARAMS, "Missing 'name' in params")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise RpcError(INVALID_PARAMS, "'arguments' must be an object of named arguments")
    return name, arguments


def _through_step(env: Any, method: str, *args: Any) -> Any:
    """``list_tools()`` / ``call_tool(name, arguments)`` of an env that answers tool actions in
    its own ``step`` (``openenv`` 0.10's "MCP-style" envs). The step is the env's own, outside
    the episode's bookkeeping, as 0.10 runs it: listing or calling tools needs no reset."""
    step = inspect.unwrap(type(env).step)
    if method == "list_tools":
        return list(getattr(step(env, ListToolsAction()), "tools", None) or [])
    name, arguments = args
    obs = step(env, CallToolAction(tool_name=name, arguments=arguments or {}))
    if not isinstance(obs, CallToolObservation):
        return CallToolObservation(tool_name=name, result=getattr(obs, "metadata", None))
    return obs


def _tool_wire(tool: Any) -> dict[str, Any]:
    """A tool as MCP lists it (``inputSchema``, camelCase, as in the MCP specification)."""
    return {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}


def _call_result(obs: Any) -> Any:
    if obs.error is None:
        return obs.result
    kind = obs.error.error_type
    caller_error = kind in (ToolErrorType.TOOL_NOT_FOUND, ToolErrorType.INVALID_ARGS)
    code = INVALID_PARAMS if caller_error else INTERNAL_ERROR
    data = {"error_type": kind.value, "tool_name": obs.tool_name}
    raise RpcError(code, obs.error.message, data)


def _replay(receive: Receive, body: bytes) -> Receive:
    """A ``receive`` that yields an already-read body once, then defers to the real one."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _load_sdk_bridge(service: McpService) -> Any:
    try:
        from openenv.server.mcp_sdk import SdkBridge
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("mcp"):
            raise
        log.info("the 'mcp' SDK is not installed: /mcp serves JSON-RPC without SDK sessions")
        return None
    try:
        return SdkBridge(service)
    except (TypeError, AttributeError, ImportError) as exc:  # an SDK of another major version
        # (FastMCP 3, which 0.10's tool envs import, pins mcp 1.x): serve plain JSON-RPC.
        log.warning(
            "the installed 'mcp' SDK %s does not fit (mcp>=2.3 does): /mcp serves JSON-RPC "
            "without SDK sessions (%s)",
            _version("mcp"),
            exc,
        )
        return None


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "(unknown version)"
