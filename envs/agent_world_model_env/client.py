"""Typed client of the Agent World Model server."""

from __future__ import annotations

from agent_world_model_env.models import AWMObservation, AWMState
from openenv.client import EnvClient
from openenv.core.mcp import CallToolAction


class AWMEnv(EnvClient[CallToolAction, AWMObservation, AWMState]):
    """``async with AWMEnv(base_url=...) as env`` or ``AWMEnv(...).sync()``.

    ``step(CallToolAction(tool_name="list_products", arguments={}))`` calls a scenario tool;
    ``verify`` scores the episode and ``done`` ends it.
    """
