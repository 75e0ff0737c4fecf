"""FinQA: financial questions answered with tools over 10-K-style tables. Client-side exports."""

from finqa_env.client import FinQAEnv
from finqa_env.models import (
    TOOL_NAMES,
    CallToolAction,
    FinQAObservation,
    FinQAState,
    ListToolsAction,
    Tool,
)

__all__ = [
    "TOOL_NAMES",
    "CallToolAction",
    "FinQAEnv",
    "FinQAObservation",
    "FinQAState",
    "ListToolsAction",
    "Tool",
]
