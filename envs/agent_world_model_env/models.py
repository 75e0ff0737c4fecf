"""Wire types of the Agent World Model environment, shared by its client and its server.

Actions are the framework's tool actions: ``CallToolAction(tool_name=..., arguments={...})``
and ``ListToolsAction()``. Three tool names are special: ``verify`` (``verifier_mode``
``code`` or ``sql``, optional ``final_answer``), ``done`` (``keep_session``) and
``__list_scenarios__``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openenv.core import State
from openenv.core.mcp import CallToolAction, CallToolObservation, ListToolsAction, Tool


class AWMObservation(CallToolObservation):
    """A tool call's outcome, the scenario and task, and the verifier's verdict once asked."""

    scenario: str = Field(default="", description="The scenario (world) of this episode")
    task_idx: int = Field(default=0, description="Which of the scenario's tasks")
    task: str = Field(default="", description="What the user asks the agent to do")
    tools: list[str] = Field(default_factory=list, description="The scenario's tool names")
    reward_type: str = Field(
        default="", description="complete, incomplete, format_error or not_judged (after verify)"
    )
    verify: dict[str, Any] | None = Field(
        default=None, description="The verdict: mode, complete, reason, changes"
    )
    scenarios: list[dict[str, Any]] | None = Field(
        default=None, description="After __list_scenarios__: name, description, num_tasks, tasks"
    )
    total: int | None = Field(default=None, description="After __list_scenarios__: how many")
    session_dir: str | None = Field(
        default=None, description="After done(keep_session=True): where the artefacts are"
    )


class AWMState(State):
    scenario: str = ""
    task_idx: int = 0
    verified: bool = False
    complete: bool | None = None
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_index: int | None = None  # its row there


__all__ = ["AWMObservation", "AWMState", "CallToolAction", "ListToolsAction", "Tool"]
