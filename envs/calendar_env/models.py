"""Wire types of the calendar environment, shared by its client and its server.

Two spellings of the same two actions are accepted, so that code written for either works:

* this framework's tool actions: ``{"type": "call_tool", "tool_name": ..., "arguments": {...}}``
  and ``{"type": "list_tools"}``;
* the reference calendar env's: ``{"action_type": "ToolCallAction", "tool_name": ...,
  "arguments": {...}}`` and ``{"action_type": "ListToolsAction"}``.

The observation carries both sets of fields too: ``tool_name`` / ``result`` / ``error`` (the
framework's ``CallToolObservation``) and ``success`` / ``error_message`` / ``tools_list`` /
``tool_result`` (the reference's ``CalendarObservation``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from openenv.core import State
from openenv.core.mcp import CallToolAction, CallToolObservation, ListToolsAction, Tool

ACTION_TYPES = ("ListToolsAction", "ToolCallAction")


class CalendarAction(CallToolAction):
    """Call one calendar tool (``action_type="ToolCallAction"``) or list them
    (``action_type="ListToolsAction"``, validated into a :class:`ListToolsAction`)."""

    action_type: Literal["ListToolsAction", "ToolCallAction"] = Field(
        default="ToolCallAction", description="The reference's spelling of the action's kind"
    )
    tool_name: str = Field(default="", max_length=128, description="Name of the tool to call")

    @model_validator(mode="before")
    @classmethod
    def _reference_spelling(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("arguments") is None and "arguments" in data:
            data = {**data, "arguments": {}}
        return data

    @model_validator(mode="after")
    def _not_a_listing(self) -> CalendarAction:
        # A listing is a ListToolsAction; failing here sends validation through model_validate
        # (servers try the plain validator first, for speed).
        if self.action_type == "ListToolsAction":
            raise ValueError("a ListToolsAction carries no tool call")
        return self

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:
        if isinstance(obj, dict) and (
            obj.get("type") == "list_tools" or obj.get("action_type") == "ListToolsAction"
        ):
            fields = {k: v for k, v in obj.items() if k == "metadata"}
            return ListToolsAction.model_validate(fields, **kwargs)
        return super().model_validate(obj, **kwargs)


class CalendarObservation(CallToolObservation):
    """What a step returns: the tool's outcome, the task and the agent's instructions."""

    success: bool = Field(default=True, description="Whether the action succeeded")
    error_message: str | None = Field(default=None, description="Why it failed, if it did")
    tools_list: list[dict[str, Any]] | None = Field(
        default=None, description="The tools (name, description, inputSchema) after ListTools"
    )
    tool_result: dict[str, Any] | None = Field(
        default=None, description="The tool's result (the same as result) after a tool call"
    )
    task: str = Field(default="", description="The task of this episode")
    prompt: str = Field(default="", description="The goal, in words, for the agent")
    user_email: str = Field(default="", description="Who the agent acts as")
    now: str = Field(default="", description="The simulated current time (UTC)")


class CalendarState(State):
    task: str = ""
    user_email: str = ""
    event_count: int = 0
    score: float = 0.0
    solved: bool = False
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_index: int | None = None  # its row there


__all__ = [
    "ACTION_TYPES",
    "CalendarAction",
    "CalendarObservation",
    "CalendarState",
    "CallToolAction",
    "ListToolsAction",
    "Tool",
]
