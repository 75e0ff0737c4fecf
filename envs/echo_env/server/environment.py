"""Echo: two tools that send a message back. The minimal example of a tool (MCP) environment.

Tools:
    ``echo_message(message)``: returns ``message``.
    ``echo_with_length(message)``: returns ``{"message": message, "length": len(message)}``.

Actions: ``CallToolAction(tool_name, arguments)`` or ``ListToolsAction()``. Observation: a
``CallToolObservation`` (``result["data"]`` is the tool's return value) or a
``ListToolsObservation``. Reward: 0.0 for every step. The episode never ends by itself.
``reset`` answers with ``metadata["message"] == "Echo environment ready!"``.
"""

from __future__ import annotations

from typing import Any

from openenv.core import ActionChoice, Text
from openenv.core.mcp import CallToolAction, CallToolObservation, MCPEnvironment, tool

READY_MESSAGE = "Echo environment ready!"


class EchoEnvironment(MCPEnvironment):
    how_to_play = (
        "Press a button (or call a tool in the Tools tab): the environment echoes your "
        "message back."
    )

    @tool
    def echo_message(self, message: str) -> str:
        """Echo the provided message.

        Args:
            message: The text to send back.
        """
        return message

    @tool
    def echo_with_length(self, message: str) -> dict[str, Any]:
        """Echo the message and include its length.

        Args:
            message: The text to send back with its length in characters.
        """
        return {"message": message, "length": len(message)}

    _echo: str | None = None  # the last echo, as the stage shows it

    def reset(self, seed: int | None = None, episode_id: str | None = None) -> CallToolObservation:
        super().reset(seed=seed, episode_id=episode_id)
        self._echo = None
        return CallToolObservation(
            reward=0.0, metadata={"status": "ready", "message": READY_MESSAGE}
        )

    def render(self) -> Text:
        """The last echo as text: the message, and its length when the tool gave one."""
        if self._echo is None:
            return Text(f"{READY_MESSAGE}\nPress a button: your message comes back here.")
        return Text(self._echo)

    def _remember(self, observation: CallToolObservation) -> None:
        result = observation.result
        data = result.get("data") if isinstance(result, dict) else getattr(result, "data", None)
        if isinstance(data, dict) and "message" in data:
            self._echo = f"{data['message']}\n(length: {data.get('length')})"
        elif data is not None:
            self._echo = str(data)

    def legal_actions(self) -> list[ActionChoice]:
        """Two example calls, one button each in the playground (any message is allowed)."""
        return [
            ActionChoice("Echo 'Hello, World!'", _call("echo_message", "Hello, World!")),
            ActionChoice("Length of 'Hello!'", _call("echo_with_length", "Hello!")),
        ]

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        observation.reward = 0.0
        observation.metadata = {"step_count": self.state.step_count + 1}
        self._remember(observation)
        return observation


def _call(tool_name: str, message: str) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": tool_name, "arguments": {"message": message}}
