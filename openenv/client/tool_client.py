"""MCPToolClient: the typed client of tool environments (MCPEnvironment servers)."""

from __future__ import annotations

from typing import Any, cast

from openenv.client.env_client import EnvClient
from openenv.client.mcp import parse_tool_result
from openenv.core.mcp import CallToolAction, CallToolObservation
from openenv.core.types import State, StepResult


class MCPToolClient(EnvClient[CallToolAction, CallToolObservation, State]):
    """Steps take ``CallToolAction`` or ``ListToolsAction``; results come back typed.

    ``list_tools()`` and ``call_tool(name, **arguments)`` call tools directly (no reward);
    ``step(CallToolAction(...))`` calls one as a step of the episode (with its reward).
    """

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[CallToolObservation]:
        # Typed for tool calls; a ListToolsAction step gives a ListToolsObservation.
        return cast(StepResult[CallToolObservation], parse_tool_result(payload))
