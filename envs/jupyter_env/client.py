"""Typed client of the Jupyter server."""

from __future__ import annotations

from jupyter_env.models import JupyterState
from openenv.client.tool_client import MCPToolClient


class JupyterEnv(MCPToolClient):
    """``async with JupyterEnv(base_url=...) as env`` or ``JupyterEnv(...).sync()``.

    ``env.reset(setup=[...], verify=[...])`` starts an episode (a fresh kernel);
    ``env.call_tool("add_and_execute_code_cell", code="x = 21 * 2\\nx")`` returns the cell's
    output as text; ``env.step(CallToolAction(...))`` calls a tool as a step (with its
    reward); ``env.state()`` is a :class:`JupyterState` with every cell and its outputs.
    """

    async def state(self) -> JupyterState:  # type: ignore[override]
        return JupyterState.model_validate((await super().state()).model_dump())
