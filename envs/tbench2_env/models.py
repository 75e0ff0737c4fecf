"""Wire types of tbench2_env (Terminal-Bench 2 tasks), with the reference's names:
``Tbench2Action(action_type=..., command=..., session_id=..., block=..., wait_seconds=...,
file_path=..., content=...)``, ``Tbench2Observation`` and ``Tbench2State``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from openenv.core import Action, Observation, State

ActionType = Literal["exec", "write", "view", "wait", "kill", "write_file", "evaluate", "close"]
MAX_COMMAND_CHARS = 10_000
MAX_CONTENT_CHARS = 200_000


class Tbench2Action(Action):
    """One terminal action. ``exec`` runs ``command`` (to its end, or with ``block=False`` in
    the background as session ``session_id``); ``write`` sends ``command`` to a session's
    input; ``view`` / ``wait`` read what it printed; ``kill`` ends it; ``write_file`` writes
    ``content`` to ``file_path``; ``evaluate`` runs the task's tests (the reward); ``close``
    ends the episode."""

    action_type: ActionType = Field(default="exec", description="What to do")
    command: str = Field(
        default="", max_length=MAX_COMMAND_CHARS, description="exec: a bash command line; "
        "write: the text to send (add \\n for Enter)"
    )  # fmt: skip
    session_id: str | None = Field(
        default=None, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$",
        description="A background session's name (exec with block=false, write, view, wait, kill)",
    )  # fmt: skip
    block: bool = Field(default=True, description="exec: wait for the command to finish")
    wait_seconds: float | None = Field(
        default=None, ge=0.0, le=30.0, description="wait: seconds to wait before reading"
    )
    file_path: str = Field(
        default="", max_length=1000, description="write_file: the file (relative to /app)"
    )
    content: str = Field(
        default="", max_length=MAX_CONTENT_CHARS, description="write_file: its new content"
    )


class Tbench2Observation(Observation):
    """What an action gave: the output, whether it succeeded, the task it belongs to."""

    instruction: str = Field(default="", description="The task's instruction")
    output: str = Field(default="", description="What the command printed (bounded)")
    success: bool = True
    error: str | None = Field(default=None, description="Why the action failed, if it did")
    task_id: str = ""
    task_path: str = ""
    session_id: str | None = None
    action_type: str = ""
    info: dict[str, Any] = Field(
        default_factory=dict, description="exit_code, cwd, timed_out; evaluate: the tests"
    )


class Tbench2State(State):
    """Per-session state: the task, the execution mode, the shell, the verdict."""

    task_id: str = ""
    task_path: str = ""
    mode: str = Field(default="local", description="local (our sandbox) or docker")
    instruction: str = ""
    difficulty: str = ""
    category: str = ""
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_index: int | None = None  # its row there
    cwd: str = "/app"
    sessions: list[str] = Field(default_factory=list, description="Background sessions alive")
    commands_run: int = 0
    evaluated: bool = False
    tests: dict[str, str] = Field(
        default_factory=dict, description="Each test's name: passed or failed (last evaluate)"
    )
    reward: float | None = None
    last_error: str | None = None


__all__ = ["ActionType", "Tbench2Action", "Tbench2Observation", "Tbench2State"]
