"""A tool env named like ours (``echo_env``), laid out as ``openenv`` 0.10's are: serving it
must use this folder, and say that the installed ``echo_env`` is not the one used. Its tools
are served the 0.10 "MCP-style" way: the action class is ``CallToolAction`` and ``step``
answers ``ListToolsAction`` / ``CallToolAction`` itself (no ``list_tools`` method)."""

from openenv.core.mcp_client import MCPToolClient

__all__ = ["MCPToolClient"]
