"""Typed client of the echo server."""

from __future__ import annotations

from openenv.client.tool_client import MCPToolClient


class EchoEnv(MCPToolClient):
    """``async with EchoEnv(base_url=...) as env`` or ``EchoEnv(...).sync()``.

    ``await env.call_tool("echo_message", message="hi")`` returns ``"hi"``;
    ``await env.step(CallToolAction(tool_name="echo_message", arguments={...}))`` returns the
    full observation with its reward (always 0.0).
    """
