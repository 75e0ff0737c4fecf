"""Clients for environment servers: typed (EnvClient), generic (dicts), and blocking (.sync())."""

from openenv.client.env_client import EnvClient
from openenv.client.generic import GenericEnvClient
from openenv.client.mcp import ToolCallError
from openenv.client.sync import SyncEnvClient
from openenv.client.tool_client import MCPToolClient

__all__ = ["EnvClient", "GenericEnvClient", "MCPToolClient", "SyncEnvClient", "ToolCallError"]
