"""Typed client of the FinQA server."""

from __future__ import annotations

from finqa_env.models import FinQAObservation, FinQAState
from openenv.client import EnvClient
from openenv.core.mcp import CallToolAction


class FinQAEnv(EnvClient[CallToolAction, FinQAObservation, FinQAState]):
    """``async with FinQAEnv(base_url=...) as env`` or ``FinQAEnv(...).sync()``.

    ``step(CallToolAction(tool_name=..., arguments={...}))`` calls a tool as a step of the
    episode (``submit_answer`` ends it with the reward); ``list_tools()`` and
    ``call_tool(name, **arguments)`` reach the same tools over MCP without counting a step.
    """
