"""Wire types of coding_tools_env: the standard tool-call actions and observations (ten tools,
SETA-style) and the state of an episode, with the reference's field names."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from openenv.core import State
from openenv.core.mcp import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
)

TodoStatus = Literal["pending", "in_progress", "completed"]


class Todo(BaseModel):
    """One item of the agent's todo list (``todo_write`` replaces the whole list)."""

    content: str = Field(min_length=1, max_length=500, description="What is to be done")
    status: TodoStatus = Field(default="pending", description="pending, in_progress, completed")
    id: str | None = Field(default=None, max_length=64, description="An id of the agent's own")


class CommandResult(BaseModel):
    """Outcome of one setup or verify command (or a ``bash`` call) in the sandbox."""

    command: str
    output: str = ""
    exit_code: int = Field(default=0, description="The command's exit status (124+: killed)")
    success: bool = True
    error: str | None = Field(default=None, description="timed out, or the sandbox failed")


class CodingToolsState(State):
    """Per-session state of coding_tools_env."""

    sandbox_id: str | None = Field(default=None, description="Identifier of the sandbox")
    provider: str = Field(default="local", description="Where commands run: local or e2b")
    task: str | None = Field(default=None, description="The shipped task, if any")
    instruction: str = Field(default="", description="What the agent is asked to do")
    setup_commands: list[str] = Field(default_factory=list)
    setup_results: list[CommandResult] = Field(default_factory=list)
    verify_commands: list[str] = Field(default_factory=list)
    verify_results: list[CommandResult] = Field(default_factory=list)
    todos: list[Todo] = Field(default_factory=list)
    files_written: list[str] = Field(
        default_factory=list, description="Files changed by write / edit / multi_edit"
    )
    submitted: bool = False
    pass_rate: float | None = Field(default=None, description="Verify commands passed / total")
    reward: float | None = Field(default=None, description="The reward of the submission")
    reward_override: float | None = Field(
        default=None, description="The number a verify command wrote to the reward file"
    )
    reward_override_ignored: str | None = Field(
        default=None, description="Why the reward file was not used (when it was there)"
    )
    last_error: str | None = None


__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "CodingToolsState",
    "CommandResult",
    "ListToolsAction",
    "ListToolsObservation",
    "Todo",
    "TodoStatus",
    "Tool",
]
