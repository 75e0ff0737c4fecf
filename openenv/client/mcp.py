"""Tools from the client side: ``list_tools()`` and ``call_tool(name, **arguments)``.

Every :class:`~openenv.client.EnvClient` has both (through :class:`ToolsMixin`); they send
JSON-RPC over the client's own ``/ws`` session (``{"type": "mcp", ...}``), so a tool acts on the
same environment as ``reset``/``step``, but without a reward and without counting as a step::

    with EchoEnv(base_url="http://localhost:8000").sync() as env:
        env.reset()
        env.list_tools()                                   # [Tool(name='echo_message', ...), ...]
        env.call_tool("echo_message", message="Hello!")   # 'Hello!'

To get a reward, step with a :class:`~openenv.core.mcp.CallToolAction` instead.
:class:`~openenv.client.tool_client.MCPToolClient` is the typed client of tool environments:
it also parses the ``ListToolsObservation`` / ``CallToolObservation`` results of ``step``.
"""

from __future__ import annotations

import itertools
from typing import Any

from openenv.core.errors import ToolCallError
from openenv.core.mcp import CallToolObservation, ListToolsObservation, Tool, tool_value
from openenv.core.types import StepResult


class ToolsMixin:
    """``list_tools`` / ``call_tool`` for a client that has ``_call(message, expect)``."""

    _rpc_ids = itertools.count(1)

    async def mcp_request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send one JSON-RPC request over the session; return its ``result`` or raise."""
        request = {"jsonrpc": "2.0", "id": next(self._rpc_ids), "method": method}
        request["params"] = params or {}
        reply = await self._call({"type": "mcp", "data": request}, "mcp")  # type: ignore[attr-defined]
        error = (reply or {}).get("error")
        if error:
            raise ToolCallError(str(error.get("message", "unknown error")), str(error.get("code")))
        return (reply or {}).get("result")

    async def list_tools(self) -> list[Tool]:
        """The environment's tools: name, description and JSON input schema."""
        result = await self.mcp_request("tools/list")
        return [_tool(t) for t in (result or {}).get("tools", [])]

    async def call_tool(self, name: str, /, **arguments: Any) -> Any:
        """Call a tool; return what it returned (``result["data"]``) or raise ToolCallError."""
        try:
            result = await self.mcp_request("tools/call", {"name": name, "arguments": arguments})
        except ToolCallError as exc:
            raise ToolCallError(f"tool {name!r} failed: {exc.message}", exc.server_code) from None
        return tool_value(result)


def _tool(payload: dict[str, Any]) -> Tool:
    schema = payload.get("input_schema", payload.get("inputSchema")) or {}
    description = payload.get("description") or ""
    return Tool(name=payload.get("name", ""), description=description, input_schema=schema)


def parse_tool_result(
    payload: dict[str, Any],
) -> StepResult[CallToolObservation | ListToolsObservation]:
    """Parse a step/reset payload of a tool environment into the right observation class."""
    fields = dict(payload.get("observation") or {})
    if "metadata" in payload and not fields.get("metadata"):
        fields["metadata"] = payload["metadata"]
    reward, done = payload.get("reward"), bool(payload.get("done", False))
    fields.update(reward=reward, done=done)
    observation: CallToolObservation | ListToolsObservation
    if "tools" in fields:
        fields["tools"] = [_tool(t) for t in fields["tools"]]
        observation = ListToolsObservation.model_validate(fields)
    else:
        known = CallToolObservation.model_fields
        observation = CallToolObservation.model_validate(
            {k: v for k, v in fields.items() if k in known}
        )
    metadata = payload.get("metadata")
    return StepResult(observation=observation, reward=reward, done=done, metadata=metadata)
