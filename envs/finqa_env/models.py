"""Wire types of the FinQA environment, shared by its client and its server.

Actions are tool calls (``{"type": "call_tool", "tool_name": ..., "arguments": {...}}``) or a
tool listing (``{"type": "list_tools"}``). The observation is the tool's outcome plus the
episode's question and company (also in ``metadata["question"]`` / ``metadata["company"]``,
where the documented client reads them).
"""

from __future__ import annotations

from pydantic import Field

from openenv.core import State
from openenv.core.mcp import CallToolAction, CallToolObservation, ListToolsAction, Tool

TOOL_NAMES = ("get_descriptions", "get_table_info", "sql_query", "calculator", "submit_answer")


class FinQAObservation(CallToolObservation):
    """A step's outcome: the tool's result or error, and the question being answered."""

    question: str = Field(default="", description="The question of this episode")
    company: str = Field(default="", description="The company whose tables hold the answer")
    step_count: int = Field(default=0, description="Tool calls made so far")
    submitted: str | None = Field(default=None, description="The submitted answer, once given")


class FinQAState(State):
    """Episode state: the question, the company, the tables touched and the submission."""

    question_id: str = ""
    question: str = ""
    company: str = ""
    tables_seen: list[str] = Field(default_factory=list)
    submitted: str | None = None
    correct: bool | None = None
    data_source: str = ""
    task_source: str | None = None  # the task file or dataset the question is a row of
    task_index: int | None = None  # its row there


__all__ = [
    "TOOL_NAMES",
    "CallToolAction",
    "FinQAObservation",
    "FinQAState",
    "ListToolsAction",
    "Tool",
]
