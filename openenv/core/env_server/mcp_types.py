"""``openenv.core.env_server.mcp_types``: the tool types (ours, :mod:`openenv.core.mcp`) and the
JSON-RPC 2.0 models of ``openenv`` 0.10's ``/mcp``, at its import path."""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openenv.core.mcp import (
    RESERVED_TOOL_NAMES,
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
    ToolError,
    ToolErrorType,
)

__all__ = [
    "RESERVED_TOOL_NAMES",
    "CallToolAction",
    "CallToolObservation",
    "JsonRpcError",
    "JsonRpcErrorCode",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "ListToolsAction",
    "ListToolsObservation",
    "McpMethod",
    "Tool",
    "ToolError",
    "ToolErrorType",
    "WSMCPMessage",
    "WSMCPResponse",
]


class JsonRpcErrorCode(int, Enum):
    """The error codes of the JSON-RPC 2.0 specification (and its generic server error)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    SERVER_ERROR = -32000


class McpMethod(str, Enum):
    """The MCP methods an environment serves."""

    TOOLS_LIST = "tools/list"
    TOOLS_CALL = "tools/call"


class JsonRpcError(BaseModel):
    """The ``error`` member of a JSON-RPC answer."""

    model_config = ConfigDict(extra="forbid")

    code: int
    message: str
    data: Any = None


class JsonRpcRequest(BaseModel):
    """A JSON-RPC 2.0 request."""

    model_config = ConfigDict(extra="forbid")

    jsonrpc: Literal["2.0"]
    method: str
    params: dict[str, Any] = Field(default_factory=dict)
    id: str | int | None = None


class JsonRpcResponse(BaseModel):
    """A JSON-RPC 2.0 answer: ``result`` or ``error``, never both on the wire."""

    model_config = ConfigDict(extra="forbid")

    jsonrpc: Literal["2.0"] = "2.0"
    result: Any = None
    error: JsonRpcError | None = None
    id: str | int | None = None

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The answer as sent: ``jsonrpc``, ``id`` and one of ``result`` / ``error``."""
        data: dict[str, Any] = {"jsonrpc": self.jsonrpc, "id": self.id}
        if self.error is not None:
            data["error"] = self.error.model_dump()
        else:
            data["result"] = self.result
        return data

    @classmethod
    def success(cls, result: Any, request_id: str | int | None = None) -> JsonRpcResponse:
        """An answer carrying ``result``."""
        return cls(result=result, id=request_id)

    @classmethod
    def error_response(
        cls,
        code: JsonRpcErrorCode | int,
        message: str | None = None,
        data: Any = None,
        request_id: str | int | None = None,
    ) -> JsonRpcResponse:
        """An answer carrying an error (its message defaults to the code's name)."""
        number = int(code)
        if message is None:
            known = {c.value: c.name for c in JsonRpcErrorCode}
            message = known.get(number, "error").replace("_", " ").capitalize()
        return cls(error=JsonRpcError(code=number, message=message, data=data), id=request_id)


class WSMCPMessage(BaseModel):
    """``{"type": "mcp", "data": <JSON-RPC request>}`` on ``/ws``."""

    type: Literal["mcp"] = "mcp"
    data: dict[str, Any]


class WSMCPResponse(BaseModel):
    """The ``/ws`` reply to an ``mcp`` message."""

    type: Literal["mcp"] = "mcp"
    data: dict[str, Any]
