"""Wire types of the terminus environment: the standard tool-call actions and observations
(one tool, ``terminal``) and the state of an episode, with the reference's field names."""

from __future__ import annotations

from pydantic import BaseModel, Field

from openenv.core import State
from openenv.core.mcp import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
)


class CommandResult(BaseModel):
    """Outcome of one shell command run in the episode's sandbox."""

    command: str
    output: str = ""
    error: str | None = None
    success: bool = True
    exit_code: int = Field(default=0, description="The command's exit status (124+: killed)")


class TerminusState(State):
    """Per-session state of the terminal environment."""

    sandbox_id: str | None = Field(default=None, description="Identifier of the sandbox")
    task: str | None = Field(default=None, description="The shipped task of the episode, if any")
    instruction: str = Field(default="", description="What the agent is asked to do")
    cwd: str = Field(default="~", description="Where the shell is (`~` is the working directory)")
    network_access: bool = Field(default=False, description="CODING_NETWORK=on on the server")
    setup_results: list[CommandResult] = Field(default_factory=list)
    verify_commands: list[str] = Field(default_factory=list)
    verify_results: list[CommandResult] = Field(default_factory=list)
    commands: list[CommandResult] = Field(
        default_factory=list, description="The last commands run (at most 50 kept)"
    )
    submitted_answer: str | None = None
    last_reward: float | None = None
    last_error: str | None = None
    task_source: str | None = Field(default=None, description="The task file the task is a row of")
    task_index: int | None = Field(default=None, description="Its row there")


__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "CommandResult",
    "ListToolsAction",
    "ListToolsObservation",
    "TerminusState",
    "Tool",
]
