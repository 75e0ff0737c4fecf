"""coding_tools_env: a coding sandbox per episode behind SETA-style tools (bash, read, write,
edit, multi_edit, glob, grep, ls, todo_write, submit_solution). Client-side exports."""

from coding_tools_env.client import CodingToolsEnv
from coding_tools_env.models import (
    CallToolAction,
    CallToolObservation,
    CodingToolsState,
    CommandResult,
    ListToolsAction,
    ListToolsObservation,
    Todo,
    Tool,
)

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "CodingToolsEnv",
    "CodingToolsState",
    "CommandResult",
    "ListToolsAction",
    "ListToolsObservation",
    "Todo",
    "Tool",
]
