"""The /ws endpoint: one session per connection, every frame answered, bad frames survived."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from openenv.core.errors import InvalidAction, OpenEnvError, SessionNotFound
from openenv.core.mcp import SimulationDisabled
from openenv.core.serialization import model_from_wire, observation_to_wire, state_to_wire
from openenv.server import protocol
from openenv.server.auth import check_bearer
from openenv.server.sessions import Session, SessionManager

log = logging.getLogger("openenv.server")

# Close codes: 1000 normal, 1008 policy violation (auth), 1013 try again later (capacity),
# 1001 going away (idle session reaped, server shutting down).
CLOSE_UNAUTHORIZED = 1008
CLOSE_CAPACITY = 1013
CLOSE_IDLE = 1001

# Tells our clients this server echoes request_id (the reference server refuses unknown keys).
FEATURES_HEADER = b"x-openenv-features"

McpHandler = Callable[[Session, Any], Awaitable[Any]]


class WsEndpoint:
    """Serves /ws for one app: authenticates, opens a session, answers messages until close."""

    def __init__(
        self,
        manager: SessionManager,
        action_cls: type,
        *,
        token: str | None = None,
        mcp_handler: McpHandler | None = None,
        simulation: bool = True,
    ) -> None:
        self.manager = manager
        self.action_cls = action_cls
        self.token = token
        self.mcp_handler = mcp_handler
        self.simulation = simulation  # False in production mode: MCP messages only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point, mounted as a plain route: an open connection keeps no per-request
        machinery of FastAPI (dependency solving, exit stacks) alive, only its own state."""
        await self.serve(WebSocket(scope, receive, send))

    async def serve(self, websocket: WebSocket) -> None:
        """Authenticate, open (or attach to) a session, answer frames until the socket closes."""
        await websocket.accept(headers=[(FEATURES_HEADER, b"request-id")])
        try:
            check_bearer(self.token, websocket.headers.get("authorization"))
            session, owned = await self._session(websocket)
        except OpenEnvError as exc:
            code = CLOSE_UNAUTHORIZED if exc.code == "UNAUTHORIZED" else CLOSE_CAPACITY
            await _send_and_close(websocket, protocol.error_reply(exc), code, exc.code)
            return
        session.on_close.append(lambda reason: _close_socket(websocket, reason))
        try:
            await self._serve(websocket, session)
        finally:
            # The slot is free before the close frame goes out: a client that saw the
            # connection close can open a new session at once.
            if owned:
                await self.manager.close(session.id, "closed by client")
            await _close_socket(websocket, "closed by client")

    async def _session(self, websocket: WebSocket) -> tuple[Session, bool]:
        """A new session, or the one named by ``?session_id=`` (owned by whoever opened it)."""
        attach = websocket.query_params.get("session_id")
        if attach:
            return self.manager.get(attach), False
        return await self.manager.open("ws"), True

    async def _serve(self, websocket: WebSocket, session: Session) -> None:
        while True:
            try:
                frame = await websocket.receive()
            except (WebSocketDisconnect, RuntimeError):
                return
            if frame["type"] == "websocket.disconnect":
                return
            raw = frame.get("text")
            if raw is None:
                raw = frame.get("bytes")
            answer, keep_open = await self._answer(session, raw)
            if answer is not None:
                try:
                    await websocket.send_text(answer)
                except (WebSocketDisconnect, RuntimeError):
                    return
            if not keep_open:
                return

    async def _answer(self, session: Session, raw: Any) -> tuple[str | None, bool]:
        """Return (reply frame, keep the connection open)."""
        try:
            message = protocol.parse_message(raw)
        except OpenEnvError as exc:
            return protocol.error_reply(exc, protocol.request_id_of(raw)), True
        rid = message.request_id
        try:
            if message.type == "close":
                return None, False
            if not self.simulation and message.type != "mcp":
                raise SimulationDisabled(
                    f"this server runs in production mode: {message.type!r} is not available; "
                    'agents use tools ({"type": "mcp", "data": <JSON-RPC request>})'
                )
            if message.type == "reset":
                obs = await self.manager.reset(session, **message.data)
                return protocol.reply("observation", observation_to_wire(obs), rid), True
            if message.type == "step":
                action = model_from_wire(message.data, self.action_cls)
                obs = await self.manager.step(session, action)
                return protocol.reply("observation", observation_to_wire(obs), rid), True
            if message.type == "state":
                state = await self.manager.state(session)
                return protocol.reply("state", state_to_wire(state), rid), True
            return protocol.reply("mcp", await self._mcp(session, message.data), rid), True
        except OpenEnvError as exc:
            return protocol.error_reply(exc, rid), True

    async def _mcp(self, session: Session, data: Any) -> Any:
        if self.mcp_handler is None:
            raise InvalidAction("this environment has no MCP tools")
        return await self.mcp_handler(session, data)


class DirectWebSocketRoute:
    """ASGI middleware that hands ``/ws`` connections straight to the endpoint.

    A WebSocket lives for the whole session, and every ASGI layer it passes through keeps a
    frame (and often an exit stack or closures) alive that long; skipping the middleware stack
    and the router saves about a third of what an idle session costs. Anything else, and any
    path this does not recognise, goes down the normal stack, which also serves ``/ws``.
    """

    def __init__(self, app: ASGIApp, *, path: str, endpoint: ASGIApp) -> None:
        self.app = app
        self.path = path
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and _route_path(scope) == self.path:
            await self.endpoint(scope, receive, send)
        else:
            await self.app(scope, receive, send)


def serve_directly(app: Starlette, path: str, endpoint: ASGIApp) -> None:
    """Put a :class:`DirectWebSocketRoute` in front of ``app``'s whole middleware stack."""
    build = app.build_middleware_stack

    def build_with_fast_path() -> ASGIApp:
        return DirectWebSocketRoute(build(), path=path, endpoint=endpoint)

    app.build_middleware_stack = build_with_fast_path  # type: ignore[method-assign]


def _route_path(scope: Scope) -> str:
    path, root = scope["path"], scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


async def _send_and_close(websocket: WebSocket, text: str, code: int, reason: str) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        await websocket.send_text(text)
        await websocket.close(code=code, reason=reason)


async def _close_socket(websocket: WebSocket, reason: str) -> None:
    if websocket.application_state == WebSocketState.DISCONNECTED:
        return
    if websocket.client_state == WebSocketState.DISCONNECTED:
        return
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
        if "idle" in reason:
            await websocket.send_text(
                protocol.error_reply(SessionNotFound(f"session closed: {reason}"))
            )
        going_away = "idle" in reason or "shutting down" in reason
        await websocket.close(code=CLOSE_IDLE if going_away else 1000, reason=reason[:120])
