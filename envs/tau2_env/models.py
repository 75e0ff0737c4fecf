"""Wire types of the τ²-bench environment, shared by its client and its server.

An action is a tool call (``{"type": "call_tool", "tool_name": ..., "arguments": {...}}``) or
a listing (``{"type": "list_tools"}``). Talking to the customer is a tool too: ``send_message``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openenv.core import State
from openenv.core.mcp import CallToolAction, CallToolObservation, ListToolsAction, Tool


class Tau2Action(CallToolAction):
    """Call one tool of the domain, or ``send_message`` to say something in the conversation."""

    tool_name: str = Field(default="", max_length=128, description="Name of the tool to call")

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:
        if isinstance(obj, dict) and obj.get("type") == "list_tools":
            return ListToolsAction.model_validate(obj, **kwargs)
        return super().model_validate(obj, **kwargs)


class Tau2Observation(CallToolObservation):
    """The tool's outcome, the conversation so far, and the episode's framing."""

    domain: str = Field(default="", description="airline or retail")
    task_id: str = Field(default="", description="The τ²-bench task id within its domain")
    seat: str = Field(default="agent", description="Who the stepping party plays: agent or user")
    user_simulator: str = Field(default="", description="scripted, llm, or human")
    messages: list[dict[str, Any]] = Field(
        default_factory=list, description="The conversation: role (user/assistant/tool), content"
    )
    customer_said: str = Field(default="", description="The customer's latest message, if new")
    agent_said: str = Field(default="", description="The agent's latest message (seat=user)")
    scenario: str = Field(default="", description="The customer's scenario (seat=user only)")
    policy: str = Field(default="", description="The domain policy (on reset only)")
    status: str = Field(default="", description="What happens next, in words")


class Tau2State(State):
    domain: str = ""
    task_id: str = ""
    seat: str = "agent"
    user_simulator: str = ""
    turns: int = 0
    conversation_over: bool = False
    end_reason: str = ""
    changed_records: dict[str, list[str]] = Field(default_factory=dict)
    reward: float | None = None
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_index: int | None = None  # its row there


__all__ = [
    "CallToolAction",
    "ListToolsAction",
    "Tau2Action",
    "Tau2Observation",
    "Tau2State",
    "Tool",
]
