"""Typed client of the coding_tools_env server."""

from __future__ import annotations

from typing import Any

from coding_tools_env.models import CallToolAction, CallToolObservation, CodingToolsState
from openenv.client.tool_client import MCPToolClient
from openenv.core import StepResult


class CodingToolsEnv(MCPToolClient):
    """``async with CodingToolsEnv(base_url=...) as env`` or ``CodingToolsEnv(...).sync()``.

    ``env.reset(setup=[...], verify=[...])`` (or ``task="fix_add"``) starts an episode;
    ``env.call_tool("write", file_path=..., content=...)`` returns a tool's text;
    ``env.use("edit", ...)`` steps the same call as part of the episode (observation, reward,
    done); ``env.submit()`` runs the verify commands and ends the episode with the reward.
    """

    async def use(self, tool_name: str, **arguments: Any) -> StepResult[CallToolObservation]:
        """Call one tool as a step of the episode."""
        return await self.step(CallToolAction(tool_name=tool_name, arguments=arguments))

    async def submit(self) -> StepResult[CallToolObservation]:
        """Call submit_solution: the verify commands score the sandbox; the episode ends."""
        return await self.use("submit_solution")

    def _parse_state(self, payload: dict[str, Any]) -> CodingToolsState:
        return CodingToolsState.model_validate(payload)
