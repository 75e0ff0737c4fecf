"""The /ws endpoint: one session per connection, every frame answered, bad frames survived.

An idle session is mostly a suspended coroutine chain plus the server's per-connection state,
so the endpoint is a plain ASGI app that speaks the ASGI WebSocket messages itself (no
Starlette ``WebSocket`` wrapper, one coroutine for the whole connection), and
:class:`DirectWsApp` hands ``/ws`` connections to it ahead of the middleware stack and router.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from openenv.core.errors import ExecutionError, InvalidAction, OpenEnvError, SessionNotFound
from openenv.core.mcp import SimulationDisabled
from openenv.core.serialization import model_from_wire, observation_to_wire, state_to_wire
from openenv.core.view_wire import drawing_of, drawing_to_wire
from openenv.server import protocol
from openenv.server.auth import check_bearer
from openenv.server.clients import trusted_proxies
from openenv.server.headers import relative_redirects, with_headers
from openenv.server.limits import TooLarge, guard_body, max_message_bytes
from openenv.server.origin import GATED, Gate, refusal_body
from openenv.server.sessions import Session, SessionManager

log = logging.getLogger("openenv.server")

# Close codes: 1000 normal, 1008 policy violation (auth), 1013 try again later (capacity),
# 1001 going away (idle session reaped, server shutting down).
CLOSE_UNAUTHORIZED = 1008
CLOSE_CAPACITY = 1013
CLOSE_IDLE = 1001
CLOSED_BY_CLIENT = "closed by client"
REFUSAL_GRACE_S = 2.0  # how long a refused client has to send its first message

FEATURES_HEADER = b"x-openenv-features"  # protocol.FEATURES: what our clients may count on
_ACCEPT = {
    "type": "websocket.accept",
    "headers": [(FEATURES_HEADER, ",".join(protocol.FEATURES).encode())],
}

# What sending on a socket the peer (or the server) already closed raises: uvicorn raises
# ClientDisconnected (an OSError) or RuntimeError after a close; other servers raise similar.
_GONE = (OSError, RuntimeError)

McpHandler = Callable[[Session, Any], Awaitable[Any]]


class _Socket:
    """The sending half of one connection; closes it at most once.

    Registered as the session's close hook, so a reaped or shut-down session closes its socket.
    """

    __slots__ = ("closed", "send")

    def __init__(self, send: Send) -> None:
        self.send = send
        self.closed = False

    async def text(self, text: str) -> bool:
        """Send one text frame; False when the connection is gone."""
        if self.closed:
            return False
        try:
            await self.send({"type": "websocket.send", "text": text})
        except _GONE:
            self.closed = True
            return False
        return True

    async def close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(*_GONE):
            await self.send({"type": "websocket.close", "code": code, "reason": reason[:120]})

    async def __call__(self, reason: str) -> None:
        """The session closed (idle, unused, overran, shutdown, or by its owner): unless its own
        client closed it, say why in an error frame (the answer a waiting call gets), then
        close."""
        if reason != CLOSED_BY_CLIENT:
            notice = SessionNotFound(f"session closed: {reason}")
            await self.text(protocol.error_reply(notice, closed=True))
        going_away = reason != CLOSED_BY_CLIENT and "closed over" not in reason
        await self.close(CLOSE_IDLE if going_away else 1000, reason)


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
        owner_of: Callable[[Scope], str | None] = lambda scope: None,
    ) -> None:
        self.manager = manager
        self.action_cls = action_cls
        # The action validator itself: model_validate's checks cost as much again per step.
        self._validate = action_cls.__pydantic_validator__.validate_python
        self.token = token
        self.mcp_handler = mcp_handler
        self.simulation = simulation  # False in production mode: MCP messages only
        self.owner_of = owner_of  # what a new session counts against (the per-client quota)
        self.max_message = max_message_bytes()  # larger messages get an error reply

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point: authenticate, open (or attach to) a session, answer frames until
        the socket closes. One coroutine for the connection's whole life."""
        if (await receive())["type"] != "websocket.connect":
            return
        await send(_ACCEPT)
        socket = _Socket(send)
        try:
            check_bearer(self.token, _header(scope, b"authorization"))
            session, owned = await self._session(scope)
        except OpenEnvError as exc:
            await self._refuse(socket, receive, exc)
            return
        session.on_close.append(socket)
        session.connections += 1  # its liveness is the connection's keepalive, not idleness
        # an env whose close() ends its calls hears of a disconnect while it answers
        listen = owned and getattr(type(session.env), "CLOSE_ENDS_CALLS", False)
        next_frame: asyncio.Future[Any] | None = None  # received while the last call ran
        try:
            while True:
                try:
                    frame = await (receive() if next_frame is None else next_frame)
                except _GONE:
                    return
                next_frame = None
                if frame["type"] != "websocket.receive":
                    socket.closed = True  # websocket.disconnect: nothing more can be sent
                    return
                raw = frame.get("text")
                if raw is None:
                    raw = frame.get("bytes")
                if listen:
                    answered, next_frame = await self._answer_unless_gone(session, raw, receive)
                    if answered is None:
                        socket.closed = True
                        return
                    answer, keep_open = answered
                else:
                    answer, keep_open = await self._answer(session, raw)
                if answer is not None and not await socket.text(answer):
                    return
                if not keep_open:
                    return
        finally:
            if next_frame is not None:
                next_frame.cancel()
            # The slot is free before the close frame goes out: a client that saw the
            # connection close can open a new session at once.
            session.connections -= 1
            session.touch()  # an attached session's idle time starts now
            if owned:
                await self.manager.close(session.id, CLOSED_BY_CLIENT)
            else:
                with contextlib.suppress(ValueError):
                    session.on_close.remove(socket)
            await socket.close(1000, CLOSED_BY_CLIENT)

    async def _answer_unless_gone(
        self, session: Session, raw: Any, receive: Receive
    ) -> tuple[tuple[str | None, bool] | None, asyncio.Future[Any] | None]:
        """:meth:`_answer`, while listening for the client's next frame: ``(answer, the
        listening future)``, that future to be awaited for the next frame; or ``(None, None)``
        when the client left first: its session is closed then, which ends the call (the env's
        ``CLOSE_ENDS_CALLS``), and the call's answer is dropped."""
        answering = asyncio.ensure_future(self._answer(session, raw))
        listening = asyncio.ensure_future(receive())
        await asyncio.wait((answering, listening), return_when=asyncio.FIRST_COMPLETED)
        if not answering.done():
            frame = listening.result() if listening.exception() is None else None
            if frame is not None and frame["type"] == "websocket.receive" and not _closing(frame):
                return await answering, listening  # a frame sent ahead: next in line
            await self.manager.close(session.id, CLOSED_BY_CLIENT)  # it left, or said close
            with contextlib.suppress(Exception):
                await answering
            return None, None
        return answering.result(), listening

    async def _refuse(self, socket: _Socket, receive: Receive, exc: OpenEnvError) -> None:
        """Say why (a full server, a missing token), then close: after the client's first
        message, so that the message is sent into an open socket and the client reads the
        error frame as its answer (as the reference does), or after REFUSAL_GRACE_S."""
        await socket.text(protocol.error_reply(exc))
        with contextlib.suppress(TimeoutError, *_GONE):
            async with asyncio.timeout(REFUSAL_GRACE_S):
                await receive()
        code = CLOSE_UNAUTHORIZED if exc.code == "UNAUTHORIZED" else CLOSE_CAPACITY
        await socket.close(code, exc.code)

    async def _session(self, scope: Scope) -> tuple[Session, bool]:
        """A new session, or the one named by ``?session_id=``: its handle, which only its
        creator was given (or its public id, for a holder of the API token). The session stays
        its creator's: this connection closing does not close it."""
        query = scope.get("query_string", b"")
        if query:
            attach = dict(parse_qsl(query.decode("latin-1"))).get("session_id")
            if attach:
                return self.manager.attach(attach, operator=self.token is not None), False
        return await self.manager.open("ws", owner=self.owner_of(scope)), True

    async def _answer(self, session: Session, raw: Any) -> tuple[str | None, bool]:
        """Return (reply frame, keep the connection open)."""
        if raw is not None and len(raw) > self.max_message:
            return protocol.error_reply(TooLarge("a message", self.max_message)), True
        try:
            message = protocol.parse_message(raw)
        except OpenEnvError as exc:
            return protocol.error_reply(exc, protocol.request_id_of(raw)), True
        kind, data, rid = message
        try:
            if kind == "step" and self.simulation:
                try:
                    action = self._validate(data)
                except ValidationError:  # the same refusal, worded for the client
                    action = model_from_wire(data, self.action_cls)
                obs = await self.manager.step(session, action)
                return protocol.reply("observation", observation_to_wire(obs), rid), True
            if kind == "close":
                return None, False
            if kind == "session":  # its own handle: this connection created or attached it
                ids = {"id": session.id, "watch": session.watch_ref}
                return protocol.reply("session", ids, rid), True
            if not self.simulation and kind != "mcp":
                raise SimulationDisabled(
                    f"this server runs in production mode: {kind!r} is not available; "
                    'agents use tools ({"type": "mcp", "data": <JSON-RPC request>})'
                )
            if kind == "reset":
                obs = await self.manager.reset(session, **data)
                return protocol.reply("observation", observation_to_wire(obs), rid), True
            if kind == "state":
                state = await self.manager.state(session)
                return protocol.reply("state", state_to_wire(state), rid), True
            if kind == "view":
                drawing = await self.manager.call(session, drawing_of)
                return protocol.reply("view", drawing_to_wire(*drawing), rid), True
            return protocol.reply("mcp", await self._mcp(session, data), rid), True
        except OpenEnvError as exc:
            return protocol.error_reply(exc, rid), True
        except (ValueError, TypeError, UnicodeError) as exc:  # the answer cannot be JSON
            log.warning("an answer could not be encoded: %s", exc)
            failed = ExecutionError(f"the environment's answer could not be encoded: {exc}")
            return protocol.error_reply(failed, rid), True

    async def _mcp(self, session: Session, data: Any) -> Any:
        if self.mcp_handler is None:
            raise InvalidAction("this environment has no MCP tools")
        return await self.mcp_handler(session, data)


def _closing(frame: dict[str, Any]) -> bool:
    """Whether a received frame is the client's ``{"type": "close"}``."""
    raw = frame.get("text")
    if raw is None or len(raw) > 200 or "close" not in raw:
        return False
    with contextlib.suppress(OpenEnvError):
        return protocol.parse_message(raw)[0] == "close"
    return False


class DirectWsApp(FastAPI):
    """A FastAPI app that hands ``/ws`` connections straight to their endpoint.

    A WebSocket lives for the whole session, and every ASGI layer it passes through (the app,
    its middleware stack, the router) keeps a suspended frame alive that long; going around
    them saves memory per idle session and time per message. Everything else, including
    ``/ws`` under a path this does not recognise, takes the normal route, and so does ``/ws``
    itself once the app has middleware of its user's (``app.add_middleware``): authentication
    or logging added that way sees every WebSocket too, for the cost of those frames.

    Every request and WebSocket first passes :attr:`gate` (:mod:`openenv.server.origin`: only
    the server's own pages drive it), and every redirect it answers is relative.
    """

    ws_path = "/ws"
    ws_endpoint: ASGIApp | None = None
    response_headers: list[tuple[bytes, bytes]] | None = None  # added to every HTTP response
    gate: Gate | None = None  # the Host and Origin checks (openenv.server.origin)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = Gate.from_env(trusted_proxies())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not scope.get(GATED):
            reason = self.gate.refusal(scope) if self.gate is not None else None
            if reason is not None:
                return await _forbidden(scope, receive, send, reason)
            scope[GATED] = True
        if scope["type"] == "http":
            send = relative_redirects(send, scope)
            if self.response_headers:
                send = with_headers(send, self.response_headers)
            return await guard_body(scope, receive, send, super().__call__)
        if (
            scope["type"] == "websocket"
            and self.ws_endpoint is not None
            and not self.user_middleware
        ):
            if self.root_path:  # what FastAPI.__call__ does before routing
                scope["root_path"] = self.root_path
            if _route_path(scope) == self.ws_path:
                return await self.ws_endpoint(scope, receive, send)
        return await super().__call__(scope, receive, send)


async def _forbidden(scope: Scope, receive: Receive, send: Send, reason: str) -> None:
    """Refuse a request the gate stopped: 403 with the reason, or a WebSocket closed before
    it is accepted (the client sees 403)."""
    log.info("refused %s %s: %s", scope["type"], scope.get("path", ""), reason)
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": CLOSE_UNAUTHORIZED, "reason": "origin"})
        return
    body = refusal_body(reason)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 403, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _route_path(scope: Scope) -> str:
    path, root = scope["path"], scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None
