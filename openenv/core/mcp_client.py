"""``openenv.core.mcp_client``: ``MCPToolClient`` at ``openenv`` 0.10's import path (ours:
:class:`openenv.client.MCPToolClient`; ``MCPClientBase`` is the same class)."""

from openenv.client.tool_client import MCPToolClient

MCPClientBase = MCPToolClient

__all__ = ["MCPClientBase", "MCPToolClient"]
