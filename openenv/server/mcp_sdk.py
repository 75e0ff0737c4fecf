"""The official ``mcp`` SDK serving an environment's tools to standard MCP clients.

The SDK owns the streamable-HTTP transport (``initialize``, ``Mcp-Session-Id``, SSE, protocol
negotiation); we supply ``tools/list`` and ``tools/call``. Each MCP session gets one environment
session of its own, opened at its first request and closed when the client ends the MCP session
(``DELETE /mcp``), or reaped by the session manager when idle. Requests without an MCP session
(the stateless protocol era) run on a fresh environment.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from openenv.core.errors import OpenEnvError, SessionNotFound
from openenv.server.sessions import Session

if TYPE_CHECKING:
    from openenv.server.mcp import McpService

_SESSION_HEADER = "mcp-session-id"


class SdkBridge:
    """An MCP SDK ``Server`` whose tools are the environment's, per MCP session."""

    def __init__(self, service: McpService) -> None:
        self.service = service
        manifest = service.ctx.manifest
        self.server: Server[Any] = Server(
            manifest.name,
            version=manifest.version or "0.0.0",
            description=manifest.description or None,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        idle = service.manager.idle_timeout_s
        self.transport = StreamableHTTPSessionManager(
            self.server, json_response=True, session_idle_timeout=idle
        )
        self._env_sessions: dict[str, str] = {}
        self._running = False

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.transport.run():
            self._running = True
            try:
                yield
            finally:
                self._running = False

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._running:
            response = JSONResponse(
                {"detail": "the MCP transport is not running: serve the app with its lifespan"},
                status_code=503,
            )
            await response(scope, receive, send)
            return
        mcp_session = _header(scope, _SESSION_HEADER)
        await self.transport.handle_request(scope, receive, send)
        if scope.get("method") == "DELETE" and mcp_session:
            await self._end(mcp_session)

    # -- handlers -------------------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        async with self._session(ctx) as session:
            tools = await self.service.manager.call(session, lambda env: env.list_tools())
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, inputSchema=t.input_schema)
                for t in tools
            ]
        )

    async def _call_tool(self, ctx: Any, params: Any) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        async with self._session(ctx) as session:
            obs = await self.service.manager.call(
                session, lambda env: env.call_tool(name, arguments)
            )
        if obs.error is not None:
            text = f"{obs.error.error_type.value}: {obs.error.message}"
            return types.CallToolResult(content=[_text(text)], isError=True)
        result = obs.result or {}
        text = "".join(c.get("text", "") for c in result.get("content", []) if isinstance(c, dict))
        return types.CallToolResult(
            content=[_text(text)],
            structuredContent=result.get("structured_content"),
            isError=bool(result.get("is_error", False)),
        )

    # -- sessions -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _session(self, ctx: Any) -> AsyncIterator[Session]:
        request = getattr(ctx, "request", None)
        mcp_session = request.headers.get(_SESSION_HEADER) if request is not None else None
        if not mcp_session:
            async with self.service.temporary_session() as session:
                yield session
            return
        yield await self._session_for(mcp_session)

    async def _session_for(self, mcp_session: str) -> Session:
        manager = self.service.manager
        known = self._env_sessions.get(mcp_session)
        if known is not None:
            with contextlib.suppress(SessionNotFound):
                return manager.get(known)
        try:
            session = await manager.open("mcp")
        except OpenEnvError as exc:
            raise RuntimeError(exc.message) from None
        self._env_sessions[mcp_session] = session.id
        session.on_close.append(lambda _reason: self._forget(mcp_session, session.id))
        return session

    def _forget(self, mcp_session: str, session_id: str) -> None:
        if self._env_sessions.get(mcp_session) == session_id:
            del self._env_sessions[mcp_session]

    async def _end(self, mcp_session: str) -> None:
        session_id = self._env_sessions.pop(mcp_session, None)
        if session_id is not None:
            await self.service.manager.close(session_id, "MCP session ended by the client")


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _header(scope: Scope, name: str) -> str | None:
    key = name.encode("latin-1")
    for header, value in scope.get("headers", []):
        if header.lower() == key:
            return value.decode("latin-1")
    return None
