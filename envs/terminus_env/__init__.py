"""Terminus: one `terminal` tool running shell commands in a sandbox per session. Client-side
exports."""

from terminus_env.client import TerminusEnv
from terminus_env.models import (
    CallToolAction,
    CallToolObservation,
    CommandResult,
    ListToolsAction,
    ListToolsObservation,
    TerminusState,
    Tool,
)

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "CommandResult",
    "ListToolsAction",
    "ListToolsObservation",
    "TerminusEnv",
    "TerminusState",
    "Tool",
]
