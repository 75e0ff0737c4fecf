"""Echo: the smallest tool (MCP) environment. Client-side exports."""

from echo_env.client import EchoEnv
from echo_env.models import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
)

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "EchoEnv",
    "ListToolsAction",
    "ListToolsObservation",
    "Tool",
]
