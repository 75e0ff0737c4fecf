"""Wire types of Python CodeAct, shared by its client and its server."""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State

MAX_CODE_CHARS = 20_000


class PythonCodeactAction(Action):
    code: str = Field(
        max_length=MAX_CODE_CHARS,
        description="A Python cell, run in the episode's interpreter (variables persist)",
        json_schema_extra={"format": "textarea"},
    )


class PythonCodeactObservation(Observation):
    task_id: str = Field(default="", description="The task, e.g. fib")
    task: str = Field(default="", description="What to write")
    stdout: str = Field(default="", description="Standard output of the cell")
    stderr: str = Field(default="", description="Standard error (tracebacks, sandbox limits)")
    exit_code: int = Field(default=0, description="0 on success, non-zero on errors")
    tests_passed: int = Field(default=0, description="Hidden tests passed after this cell")
    tests_total: int = Field(default=0, description="Hidden tests in all")
    failures: list[str] = Field(
        default_factory=list, description="The first failing tests: input, expected, got"
    )
    solved: bool = Field(default=False, description="True once every test passes")
    message: str = Field(default="", description="What happened")


class PythonCodeactState(State):
    task_id: str = ""
    max_steps: int = 10
    solved: bool = False
    last_exit_code: int = 0
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_index: int | None = None  # its row there
