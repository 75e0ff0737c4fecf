"""Terminus: one ``terminal`` tool running shell commands in a sandbox of the session's own.

Tool: ``terminal(command="", final_answer="")``. With ``command``, runs it with bash in the
episode's working directory (``~``, private to the session) and returns its output (stdout and
stderr merged, as a terminal shows them; a note says when it was cut, killed at the time limit
or exited non-zero). Files persist for the episode, and so does the directory ``cd`` left the
shell in; shell variables and processes do not (every command is a new ``bash``; what it
started in the background ends with it). With ``final_answer``, submits the answer: the task's
checker (and any ``verify`` commands) score the working directory, and the episode ends.

Actions: ``CallToolAction(tool_name="terminal", arguments={...})`` or ``ListToolsAction()``.
Observation: ``CallToolObservation`` (``result["data"]`` is the text the tool returned;
``metadata``: ``exit_code``, ``cwd``, ``timed_out``, and after a submission ``verdict``).
State: :class:`~terminus_env.models.TerminusState` (the reference's fields, and ``task``,
``instruction``, ``cwd``, ``network_access``).

Reset options: ``task`` (one of :data:`~terminus_env.server.tasks.TASKS`: its files are
created, drawn from the seed, and its instruction is in ``metadata["instruction"]``), the
reference's ``setup`` / ``verify`` command lists (``setup_scripts`` / ``verify_scripts`` are
the same), ``max_steps``. Reward: 0.0 per command; on submission the task's score, or with
``verify`` commands the share that passed (``~/logs/verifier/reward.txt``, when a verify
command writes a number there, overrides it); with both, their mean. The episode ends at the
submission, or after ``max_steps`` steps (reward 0.0, ``metadata["truncated"]``). Or
``task_source`` (a task file such as the shipped ``starter.jsonl``, or a dataset) and
``task_index`` (its row; none: the seed picks one), whose row names one of those tasks (its
``task``): the task's own files and checker, nothing of a row is run; ``setup`` / ``verify`` or
a ``task`` other than the default beside a ``task_source`` are refused.

The commands run in :class:`openenv.sandbox.Sandbox` (coding_env's isolation and its
``CODING_*`` limits: no network unless ``CODING_NETWORK=on``; time, CPU, memory, processes,
file size; the host read-only; private ``/tmp``), through :mod:`openenv.sandbox.shell`.
"""

from __future__ import annotations

import uuid
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from openenv.core import ActionChoice, InvalidAction, Text, View
from openenv.core.mcp import CallToolAction, CallToolObservation, MCPEnvironment, tool
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.sandbox import SandboxLimits
from openenv.sandbox.shell import Shell, ShellResult, tilde
from terminus_env.models import CommandResult, TerminusState
from terminus_env.server import workspace
from terminus_env.server.tasks import TASKS, Prepared, Task

MAX_COMMAND_CHARS = 10_000
MAX_ANSWER_CHARS = 2_000
MAX_SCRIPTS = 10
KEPT_COMMANDS = 50  # in state.commands
SHOWN_ENTRIES = 30  # in the transcript view
SHOWN_LINES = 40  # per command in the view
REWARD_FILE = "logs/verifier/reward.txt"
SHELL_ENV = {"TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat"}

TaskName = Literal["hello_file", "find_error", "sort_inbox", "free"]
DEFAULT_TASK = "hello_file"  # a visitor presses Reset and has something to do; "free": none
Commands = Annotated[
    list[Annotated[str, Field(max_length=MAX_COMMAND_CHARS)]] | None,
    Field(max_length=MAX_SCRIPTS, description=f"shell commands (at most {MAX_SCRIPTS})"),
]
Steps = Annotated[int, Field(ge=1, le=1000, description="steps before the episode is cut")]
# A row of a task file: one of the shipped tasks, by name (as the ``task`` option names it).
# Nothing of a row is run: the task's own files and checker are.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"task": ("task", "task_id", "name")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_TASK: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=100)]
)


def row_task(picked: PickedTask) -> str:
    """The shipped task a row names; a TaskSourceError names the row and what does not fit."""
    name = picked.valid(_ROW_TASK, picked.task["task"])
    if name not in TASKS:
        raise picked.error(f"no task {name!r}; tasks: {', '.join(TASKS)}")
    return name


@dataclass(frozen=True)
class Entry:
    """One command in the transcript: where it ran, what it was, what it printed."""

    cwd: str
    command: str
    output: str


class TerminusEnvironment(MCPEnvironment):
    how_to_play = (
        "Create hello.txt as the task above the terminal asks: run commands in the Termin"
        "al tab below (or press a button), then Submit 'done'."
    )
    CALL_TIMEOUT_S = 300.0  # a reset runs up to 10 setup commands of CODING_TIMEOUT_S each

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        super().__init__()
        self._limits = limits or SandboxLimits.for_package("terminus_env")
        self._shell: Shell | None = None
        self._cwd: str | None = None  # on the host; None: the working directory
        self._task: Task | None = None
        self._prepared: Prepared | None = None
        self._max_steps = 100
        self._transcript: deque[Entry] = deque(maxlen=SHOWN_ENTRIES)
        self._call_meta: dict[str, Any] = {}
        self._verdict: dict[str, Any] | None = None
        self._state = self._fresh_state(None)

    # -- the tool ---------------------------------------------------------------------------

    @tool
    def terminal(self, command: str = "", final_answer: str = "") -> str:
        """Run a shell command in the sandbox, or submit a final answer.

        Args:
            command: A bash command line, run where the last cd left the shell (~ at first).
                Files persist for the episode; processes end with the command.
            final_answer: The answer to submit. The task is checked and the episode ends.
        """
        if len(command) > MAX_COMMAND_CHARS or len(final_answer) > MAX_ANSWER_CHARS:
            raise InvalidAction(
                f"a command holds at most {MAX_COMMAND_CHARS} characters and an answer "
                f"{MAX_ANSWER_CHARS}"
            )
        if final_answer.strip():
            return self._submit(final_answer.strip())
        if not command.strip():
            raise InvalidAction("give a command to run (e.g. 'ls'), or a final_answer to submit")
        return self._command(command)

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolObservation:
        self._call_meta, self._verdict = {}, None
        return super().call_tool(name, arguments)

    # -- the contract -------------------------------------------------------------------------

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: TaskName | None = DEFAULT_TASK,
        setup: Commands = None,
        verify: Commands = None,
        setup_scripts: Commands = None,
        verify_scripts: Commands = None,
        max_steps: Steps = 100,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> CallToolObservation:
        picked = TASK_ROWS.pick(
            task_source,
            task_index,
            self.rng,
            "task",
            task=task not in (None, DEFAULT_TASK),  # the form sends the default as it stands
            setup=setup,
            verify=verify,
            setup_scripts=setup_scripts,
            verify_scripts=verify_scripts,
        )
        if picked is not None:
            task = row_task(picked)
        self._close_shell()
        self._state = self._fresh_state(episode_id)
        self._state.task_source = picked.source if picked else None
        self._state.task_index = picked.index if picked else None
        if setup or verify or setup_scripts or verify_scripts or task == "free":
            task = None if task in (DEFAULT_TASK, "free") else task  # their own task instead
        self._task = TASKS[task] if task else None
        self._prepared = self._task.prepare(self.rng) if self._task else None
        self._max_steps = max_steps
        self._transcript.clear()
        self._state.task = task
        self._state.instruction = self._prepared.instruction if self._prepared else ""
        self._state.verify_commands = list(verify or verify_scripts or [])
        if self._prepared and self._prepared.files:
            workspace.write_files(self._ensure_shell(), self._prepared.files)
        if self._state.verify_commands:
            self._ensure_shell().bash("mkdir -p logs/verifier")
        failed = self._run_setup(list(setup or setup_scripts or []))
        return self._ready(failed)

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        meta = {"step_count": self._state.step_count + 1, **self._call_meta}
        observation.reward = 0.0
        if self._verdict is not None:
            observation.reward = self._verdict["reward"]
            observation.done = True
            meta["verdict"] = self._verdict
        elif self._state.step_count + 1 >= self._max_steps:
            observation.done = True
            meta["truncated"] = True
        observation.metadata = meta
        return observation

    @property
    def state(self) -> TerminusState:  # type: ignore[override]
        return self._state

    def close(self) -> None:
        self._close_shell()

    # -- playground -------------------------------------------------------------------------

    def render(self) -> View | None:
        lines = []
        if self._state.instruction:
            lines += [f"Task {self._state.task}: {self._state.instruction}", ""]
        if not self._transcript:
            lines.append("~ $ (type a command in the Terminal tab, or call the terminal tool)")
        for entry in self._transcript:
            lines.append(f"{entry.cwd} $ {entry.command}")
            lines.append(_shown(entry.output))
        return Text("\n".join(lines))

    def legal_actions(self) -> list[ActionChoice]:
        """A few commands one click away (any command may be typed), and a submission."""
        choices = [ActionChoice(f"$ {c}", _call(command=c)) for c in ("ls -F", "pwd", "cd ~")]
        return [*choices, ActionChoice("Submit 'done'", _call(final_answer="done"))]

    # -- running ----------------------------------------------------------------------------

    def _command(self, command: str) -> str:
        shell = self._ensure_shell()
        where = self._shown_cwd()
        result = shell.bash(command, cwd=self._cwd, env=SHELL_ENV)
        self._cwd = None if result.sandbox_error else result.cwd
        self._state.cwd = self._shown_cwd()
        text = result.text(self._limits.timeout_s)
        self._remember(self._state.commands, _record(command, result, text), KEPT_COMMANDS)
        self._transcript.append(Entry(where, command, text))
        self._call_meta = {
            "exit_code": result.exit_code,
            "cwd": self._state.cwd,
            "timed_out": result.timed_out,
        }
        return text

    def _submit(self, answer: str) -> str:
        self._state.submitted_answer = answer
        scores, reasons = [], []
        if self._task is not None and self._prepared is not None:
            files, dirs = self._task.wants(self._prepared)
            seen = workspace.read(self._ensure_shell(), files, dirs)
            verdict = self._task.check(self._prepared, seen, answer)
            scores.append(verdict.score)
            reasons.append(verdict.reason)
        if self._state.verify_commands:
            score, summary = self._run_verify()
            scores.append(score)
            reasons.append(summary)
        reward = round(sum(scores) / len(scores), 4) if scores else 0.0
        self._state.last_reward = reward if scores else None
        self._verdict = {"reward": reward, "checked": bool(scores), "reasons": reasons}
        self._transcript.append(Entry(self._shown_cwd(), f"(final answer) {answer}", ""))
        text = f"Answer submitted: {answer}"
        if scores:
            text += "\n" + "\n".join(reasons) + f"\nreward={reward}"
        return text

    def _run_setup(self, commands: list[str]) -> bool:
        """Run the setup commands in ``~``; True when one failed (the rest are skipped)."""
        for command in commands:
            result = self._ensure_shell().bash(command, env=SHELL_ENV)
            text = result.text(self._limits.timeout_s)
            self._state.setup_results.append(_record(command, result, text))
            if not result.success:
                return True
        return False

    def _run_verify(self) -> tuple[float, str]:
        shell = self._ensure_shell()
        results = []
        for command in self._state.verify_commands:
            result = shell.bash(command, env=SHELL_ENV)
            results.append(_record(command, result, result.text(self._limits.timeout_s)))
        self._state.verify_results = results
        passed = sum(r.success for r in results)
        score = passed / len(results)
        override = workspace.read(shell, [REWARD_FILE]).files.get(REWARD_FILE)
        try:
            score = float((override or "").strip())
        except ValueError:
            pass
        return score, f"Verification: {passed}/{len(results)} passed"

    def _ready(self, setup_failed: bool) -> CallToolObservation:
        meta: dict[str, Any] = {
            "status": "error" if setup_failed else "ready",
            "message": "Setup command failed." if setup_failed else _greeting(self._state),
            "task": self._state.task,
            "instruction": self._state.instruction,
            "setup_results": [r.model_dump() for r in self._state.setup_results],
            "verify_commands": self._state.verify_commands,
        }
        return CallToolObservation(
            reward=0.0 if not setup_failed else None, done=setup_failed, metadata=meta
        )

    # -- bookkeeping ------------------------------------------------------------------------

    def _ensure_shell(self) -> Shell:
        if self._shell is None:
            self._shell = Shell(self._limits)
            self._state.sandbox_id = f"sandbox-{uuid.uuid4().hex[:12]}"
        return self._shell

    def _shown_cwd(self) -> str:
        home = self._shell.home if self._shell is not None else None
        return tilde(self._cwd, home) if self._cwd else "~"

    def _fresh_state(self, episode_id: str | None) -> TerminusState:
        return TerminusState(
            episode_id=episode_id or str(uuid.uuid4()), network_access=self._limits.network
        )

    @staticmethod
    def _remember(items: list[CommandResult], item: CommandResult, keep: int) -> None:
        items.append(item)
        del items[:-keep]

    def _close_shell(self) -> None:
        shell, self._shell, self._cwd = self._shell, None, None
        if shell is not None:
            shell.close()


def _record(command: str, result: ShellResult, text: str) -> CommandResult:
    error = result.sandbox_error or ("timed out" if result.timed_out else None)
    return CommandResult(
        command=command,
        output=text,
        error=error,
        success=result.success,
        exit_code=result.exit_code,
    )


def _greeting(state: TerminusState) -> str:
    text = "Terminus environment ready. Use terminal(command=...) to work."
    if state.setup_results:
        text += f" Setup commands run: {len(state.setup_results)}."
    if state.verify_commands:
        text += f" Verify commands registered: {len(state.verify_commands)}."
    return text


def _shown(output: str) -> str:
    lines = output.splitlines()
    if len(lines) <= SHOWN_LINES:
        return output
    return "\n".join([*lines[:SHOWN_LINES], f"[... {len(lines) - SHOWN_LINES} more lines]"])


def _call(**arguments: str) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": "terminal", "arguments": arguments}
