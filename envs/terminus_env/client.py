"""Typed client of the terminus server."""

from __future__ import annotations

from typing import Any

from openenv.client.tool_client import MCPToolClient
from openenv.core import StepResult
from terminus_env.models import CallToolAction, CallToolObservation, TerminusState


class TerminusEnv(MCPToolClient):
    """``async with TerminusEnv(base_url=...) as env`` or ``TerminusEnv(...).sync()``.

    ``await env.call_tool("terminal", command="ls")`` returns the output text (no reward);
    ``await env.run("ls")`` steps the same call as part of the episode and returns the full
    result (observation, reward, done); ``await env.submit("42")`` submits a final answer.
    """

    async def run(self, command: str) -> StepResult[CallToolObservation]:
        """Run one shell command as a step of the episode."""
        action = CallToolAction(tool_name="terminal", arguments={"command": command})
        return await self.step(action)

    async def submit(self, final_answer: str) -> StepResult[CallToolObservation]:
        """Submit the final answer: the task is checked and the episode ends."""
        action = CallToolAction(tool_name="terminal", arguments={"final_answer": final_answer})
        return await self.step(action)

    def _parse_state(self, payload: dict[str, Any]) -> TerminusState:
        return TerminusState.model_validate(payload)
