"""Wire types of the Julia environment, shared by its client and its server."""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State

MAX_CODE_CHARS = 50_000


class JuliaAction(Action):
    core_code: str = Field(
        description="Julia code defining the function the task asks for",
        max_length=MAX_CODE_CHARS,
        json_schema_extra={"format": "textarea"},
    )
    test_code: str = Field(
        default="",
        description="Optional Julia code of your own, run after the task's tests (not scored)",
        max_length=MAX_CODE_CHARS,
        json_schema_extra={"format": "textarea"},
    )


class JuliaObservation(Observation):
    task_id: str = Field(default="", description="The task's id")
    prompt: str = Field(default="", description="What to write")
    signature: str = Field(default="", description="The function to define")
    julia_available: bool = Field(default=False, description="Whether this server can run Julia")
    stdout: str = Field(default="", description="Output of the run (yours and the tests')")
    stderr: str = Field(default="", description="Errors of the run")
    exit_code: int | None = Field(default=None, description="Julia's exit code; None: not run")
    code_compiles: bool | None = Field(default=None, description="Whether your code loaded")
    tests_passed: int = Field(default=0, description="Task tests passed")
    tests_failed: int = Field(default=0, description="Task tests failed or errored")
    test_results: list[str] = Field(default_factory=list, description="One line per task test")
    attempts_remaining: int = Field(default=0, description="Runs left in the episode")
    message: str = Field(default="", description="What happened, in words")


class JuliaState(State):
    task_id: str = ""
    max_attempts: int = 3
    attempts: int = 0
    best_passed: int = 0
    julia: str = Field(default="", description="The Julia binary used ('' when none)")
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_index: int | None = None  # its row there
