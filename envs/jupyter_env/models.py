"""Wire types of the Jupyter environment: the standard tool-call actions and observations, and
the notebook kept in the state (cells, their outputs, setup and verify results).

``NotebookCell``, ``CommandResult`` and ``JupyterState`` carry the reference's field names;
``NotebookCell.outputs`` adds the cell's outputs in order (text, images, HTML), as the
playground draws them.
"""

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

OutputKind = Literal["stream", "execute_result", "display_data", "error"]


class CellOutput(BaseModel):
    """One output of a cell, in the order the kernel sent it (sizes are bounded)."""

    output_type: OutputKind = Field(description="Jupyter's output type")
    name: str = Field(default="", description="'stdout' or 'stderr' for a stream")
    text: str = Field(default="", description="Text: the stream, text/plain, or the traceback")
    png: str | None = Field(default=None, description="A base64 PNG image (image/png)")
    html: str | None = Field(default=None, description="HTML (text/html), e.g. a pandas table")


class NotebookCell(BaseModel):
    """One executed cell of the notebook."""

    cell_id: str = Field(description="Identifier of the cell")
    cell_type: str = Field(description="'code' or 'shell'")
    code: str = Field(description="The code (or shell command) executed")
    output: str = Field(description="The output as plain text, as the tools return it")
    error: str | None = Field(default=None, description="The traceback, if the cell failed")
    execution_count: int = Field(description="The kernel's execution counter for this cell")
    has_image: bool = Field(default=False, description="Whether the cell produced an image")
    images: list[str] = Field(default_factory=list, description="Base64 PNG images")
    success: bool = Field(default=True, description="Whether the cell ran without error")
    outputs: list[CellOutput] = Field(default_factory=list, description="Outputs in order")


class CommandResult(BaseModel):
    """Outcome of one setup or verify shell command."""

    command: str
    output: str = ""
    error: str | None = None
    success: bool = True


class JupyterState(State):
    """The episode's notebook and its verification."""

    cells: list[NotebookCell] = Field(default_factory=list)
    sandbox_id: str | None = Field(default=None, description="The kernel's id (None: no kernel)")
    last_cell_success: bool = True
    setup_results: list[CommandResult] = Field(default_factory=list)
    verify_results: list[CommandResult] = Field(default_factory=list)
    verify_commands: list[str] = Field(default_factory=list)
    submitted_answer: str | None = None
    last_reward: float | None = None
    network_access: bool = Field(
        default=False, description="Whether the kernel may use the network"
    )


__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "CellOutput",
    "CommandResult",
    "JupyterState",
    "ListToolsAction",
    "ListToolsObservation",
    "NotebookCell",
    "Tool",
]
