"""``openenv.core.env_server.mcp_environment``: ``MCPEnvironment`` at ``openenv`` 0.10's path.

It is our :class:`openenv.core.mcp.MCPEnvironment` (tools declared with ``@tool`` methods),
taking 0.10's constructor too: ``super().__init__(mcp_server, transform=None)`` with a FastMCP
server whose tools (``@mcp.tool`` functions) are served next to the ``@tool`` methods, and
0.10's ``_step_impl(action)`` hook for actions that are not tool calls.
"""

from __future__ import annotations

import inspect
from typing import Any

from openenv.core.environment import _run_blocking
from openenv.core.errors import InvalidAction
from openenv.core.mcp import CallToolObservation, Tool, ToolErrorType, tool_result
from openenv.core.mcp import MCPEnvironment as _MCPEnvironment
from openenv.core.mcp import _failed as failed_call
from openenv.core.transforms import Transform
from openenv.core.types import Action, Observation

__all__ = ["MCPEnvironment", "get_server_tools"]


class MCPEnvironment(_MCPEnvironment):
    """A tool environment; see the module docstring for what 0.10's form adds."""

    def __init__(self, mcp_server: Any = None, transform: Transform | None = None) -> None:
        super().__init__()
        self.mcp_server = mcp_server
        if transform is not None:
            self.transform = transform

    def list_tools(self) -> list[Tool]:
        own = super().list_tools()
        served = get_server_tools(getattr(self, "mcp_server", None))
        return own + [_as_tool(t) for name, t in served.items() if name not in self._tool_specs]

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolObservation:
        served = get_server_tools(getattr(self, "mcp_server", None))
        if name in self._tool_specs or name not in served:
            return super().call_tool(name, arguments)
        try:
            value = _call(served[name], arguments or {})
        except Exception as exc:  # the tool is user code: its failure goes to the agent
            kind = (
                ToolErrorType.INVALID_ARGS if _bad_arguments(exc) else ToolErrorType.EXECUTION_ERROR
            )
            return failed_call(name, kind, f"{type(exc).__name__}: {exc}")
        return CallToolObservation(tool_name=name, result=tool_result(value))

    def _unknown_tool(self, name: str) -> str:
        served = list(get_server_tools(getattr(self, "mcp_server", None)))
        available = ", ".join([*self._tool_specs, *served]) or "none"
        return f"unknown tool {name!r}; available tools: {available}"

    def step_action(self, action: Action) -> Observation:
        return self._step_impl(action)

    def _step_impl(self, action: Action, **kwargs: Any) -> Observation:
        """An action that is not a tool call (0.10's hook; refused unless overridden)."""
        return super().step_action(action)


def _bad_arguments(exc: Exception) -> bool:
    """Whether a tool refused its arguments (FastMCP's own ValidationError included)."""
    return isinstance(exc, TypeError | ValueError) or type(exc).__name__ == "ValidationError"


def get_server_tools(mcp_server: Any) -> dict[str, Any]:
    """The tools of a FastMCP server by name (its 2.x ``get_tools`` or 3.x ``list_tools``)."""
    if mcp_server is None:
        return {}
    for method in ("get_tools", "list_tools"):
        lister = getattr(mcp_server, method, None)
        if callable(lister):
            found = _run_blocking(lister()) if inspect.iscoroutinefunction(lister) else lister()
            return found if isinstance(found, dict) else {t.name: t for t in found}
    return {}


def _as_tool(server_tool: Any) -> Tool:
    schema = getattr(server_tool, "parameters", None) or getattr(server_tool, "inputSchema", None)
    return Tool(
        name=server_tool.name,
        description=getattr(server_tool, "description", None) or "",
        input_schema=schema or {"type": "object", "properties": {}},
    )


def _call(server_tool: Any, arguments: dict[str, Any]) -> Any:
    """Run a FastMCP tool: its own ``run`` (which validates and coerces the arguments) where it
    has one, else its function."""
    run = getattr(server_tool, "run", None)
    if callable(run):
        return _value_of(_settled(run(arguments)))
    fn = getattr(server_tool, "fn", None)
    if not callable(fn):
        raise InvalidAction(f"tool {server_tool.name!r} has no function to call")
    return _settled(fn(**arguments))


def _settled(value: Any) -> Any:
    return _run_blocking(value) if inspect.isawaitable(value) else value


def _value_of(result: Any) -> Any:
    """The value inside a FastMCP ``ToolResult``: its structured result, else its text."""
    structured = getattr(result, "structured_content", None)
    if isinstance(structured, dict) and set(structured) == {"result"}:
        return structured["result"]
    if structured is not None:
        return structured
    texts = [getattr(part, "text", None) for part in getattr(result, "content", None) or []]
    texts = [text for text in texts if text is not None]
    return texts[0] if len(texts) == 1 else texts
