"""Jupyter: a stateful notebook on a sandboxed IPython kernel, driven by MCP tools."""

from jupyter_env.client import JupyterEnv
from jupyter_env.models import (
    CallToolAction,
    CallToolObservation,
    CellOutput,
    CommandResult,
    JupyterState,
    ListToolsAction,
    ListToolsObservation,
    NotebookCell,
    Tool,
)

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "CellOutput",
    "CommandResult",
    "JupyterEnv",
    "JupyterState",
    "ListToolsAction",
    "ListToolsObservation",
    "NotebookCell",
    "Tool",
]
