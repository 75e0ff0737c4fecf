"""Wire types of the REPL environment, shared by its client and its server.

Field names follow the reference ``repl_env`` (``REPLAction.code / is_final / final_answer``,
``REPLObservation.result`` as a ``CodeBlockResult``, ``REPLState.final_answer``...), so code
written for the reference runs unchanged.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from openenv.core import Action, Observation, State

MAX_CODE_CHARS = 50_000  # one cell; the sandbox takes at most 1 MB of source once quoted
MAX_ANSWER_CHARS = 10_000


class REPLAction(Action):
    """One cell of Python to run, or (``is_final=True``) a final answer to submit."""

    code: str = Field(
        default="",
        max_length=MAX_CODE_CHARS,
        description="Python code to run in the session's interpreter",
        json_schema_extra={"format": "textarea"},
    )
    is_final: bool = Field(default=False, description="Submit final_answer and end the episode")
    final_answer: str | None = Field(
        default=None, max_length=MAX_ANSWER_CHARS, description="The answer, when is_final"
    )


class CodeBlockResult(BaseModel):
    """What running one cell gave."""

    stdout: str = Field(default="", description="Standard output (and the last expression)")
    stderr: str = Field(default="", description="Standard error: tracebacks, sandbox limits")
    locals_snapshot: dict[str, str] = Field(
        default_factory=dict, description="repr of each variable the cell created or rebound"
    )
    execution_time: float = Field(default=0.0, ge=0, description="Seconds the cell took")
    success: bool = Field(default=True, description="False when the cell raised or hit a limit")
    exception: str | None = Field(default=None, description="The exception's last line, if any")


class REPLObservation(Observation):
    # Timings differ between two runs of the same episode: validators compare everything else.
    model_config = ConfigDict(
        json_schema_extra={"x-wall-clock": ["result.execution_time", "metadata.execution_time"]}
    )

    result: CodeBlockResult = Field(default_factory=CodeBlockResult)
    context_preview: str | None = Field(
        default=None, description="The first characters of `context`, when one is loaded"
    )
    context_length: int = Field(default=0, ge=0, description="Length of `context` in characters")
    available_variables: list[str] = Field(
        default_factory=list, description="Names defined in the interpreter"
    )
    iteration: int = Field(default=0, ge=0, description="Steps taken in this episode")
    max_iterations: int = Field(default=30, ge=1, description="Steps allowed in this episode")


class REPLState(State):
    context: str | None = Field(default=None, description="The text loaded as `context`")
    task_prompt: str | None = Field(default=None, description="What the episode asks for")
    iteration: int = Field(default=0, ge=0)
    max_iterations: int = Field(default=30, ge=1)
    namespace_keys: list[str] = Field(default_factory=list, description="Names defined")
    final_answer: str | None = Field(default=None, description="The submitted answer, at the end")
    total_execution_time: float = Field(default=0.0, ge=0)
    task: str = Field(default="free", description="The shipped task played (free: none)")
    task_source: str | None = Field(
        default=None, description="The task file or dataset the task is a row of"
    )
    task_index: int | None = Field(default=None, description="Its row there")
