"""coding_tools_env: a coding sandbox per episode behind ten SETA-style tools.

Tools: ``bash(command, timeout=30)``, ``read(file_path, offset=None, limit=None)``,
``write(file_path, content)``, ``edit(file_path, old_string, new_string, replace_all=False)``,
``multi_edit(file_path, edits)``, ``glob(pattern, path=None)``, ``grep(pattern, path=None,
include=None)``, ``ls(path=".", ignore=None)``, ``todo_write(todos)``, ``submit_solution()``.
Paths are absolute or relative to the home, ``/home/user``; ``bash`` keeps the directory its
last ``cd`` left (files persist for the episode; processes end with their command).

Reset options: ``setup`` and ``verify`` (lists of shell commands, run in the home) and an
``instruction``; or ``task``, one of :data:`~coding_tools_env.server.tasks.TASKS` (their setup
and verify commands; ``fix_add`` when nothing is given); ``max_steps``.

Reward: 0.0 per tool call; ``submit_solution`` runs the verify commands and ends the episode
with ``passed / total``, unless a verify command wrote a number to
``/home/user/logs/verifier/reward.txt`` (deleted before they run, so the agent cannot plant
it): a finite number replaces the pass rate, anything else is ignored and the reason is in
``state.reward_override_ignored``. The observation's ``metadata["reward_components"]`` says
which (``verify_pass_rate`` or ``reward_file``).

Commands run in the provider of :mod:`coding_tools_env.server.providers` (our sandbox by
default, E2B with ``CODING_TOOLS_PROVIDER=e2b``).
"""

from __future__ import annotations

import math
import pathlib
import uuid
from collections import deque
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from coding_tools_env.models import CodingToolsState, CommandResult, Todo
from coding_tools_env.server import files
from coding_tools_env.server.providers import HOME, Outcome, Workspace, open_workspace
from coding_tools_env.server.tasks import DEFAULT_TASK, TASKS
from openenv.core import ActionChoice, InvalidAction, Text, View
from openenv.core.mcp import (
    CallToolAction,
    CallToolObservation,
    MCPEnvironment,
    ToolError,
    ToolErrorType,
    tool,
)
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.sandbox import SandboxLimits

MAX_COMMAND_CHARS = 10_000
MAX_CONTENT_CHARS = 200_000
MAX_PATH_CHARS = 1_000
MAX_COMMANDS = 10
MAX_EDITS = 50
MAX_TODOS = 50
KEPT_FILES = 50
SHOWN_CALLS = 12  # tool calls in the stage's transcript
SHOWN_LINES = 30  # per call in the stage
REWARD_FILE = f"{HOME}/logs/verifier/reward.txt"

TaskName = Literal["fix_add", "answer_file", "rename_setting", "free"]
Path = Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]
Commands = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_COMMAND_CHARS)]] | None,
    Field(max_length=MAX_COMMANDS, description=f"shell commands (at most {MAX_COMMANDS})"),
]
Steps = Annotated[int, Field(ge=1, le=1000, description="tool calls before the episode is cut")]
Instruction = Annotated[str, Field(max_length=4000)]
PACKAGE_DIR = pathlib.Path(__file__).resolve().parent.parent  # tasks/: the shipped task files
# A row of a task file: what the agent reads and the setup / verify commands (a list, or one
# command as text), under the names the reference's reset and common task sets use.
TASK_ROWS = TaskRows(
    PACKAGE_DIR,
    TaskColumns(
        fields={
            "instruction": ("instruction", "prompt", "task", "problem_statement"),
            "setup": ("setup", "setup_commands"),
            "verify": ("verify", "verify_commands", "tests", "test_commands"),
        },
        defaults={"setup": [], "verify": []},
    ),
)
TaskSource, TaskRow = TASK_ROWS.options()
_COMMANDS: TypeAdapter[list[str] | None] = TypeAdapter(Commands)
_INSTRUCTION: TypeAdapter[str] = TypeAdapter(Instruction)


def row_task(picked: PickedTask) -> tuple[str, list[str], list[str]]:
    """(instruction, setup, verify) of a task row, held to the bounds of the reset options."""
    task = picked.task
    instruction = picked.valid(_INSTRUCTION, str(task["instruction"]))
    setup, verify = (
        picked.valid(_COMMANDS, [value] if isinstance(value, str) else value) or []
        for value in (task["setup"], task["verify"])
    )
    return instruction, setup, verify


class Edit(BaseModel):
    """One replacement of ``multi_edit``."""

    old_string: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]
    new_string: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]
    replace_all: bool = False


@dataclass(frozen=True)
class Call:
    """One tool call in the stage's transcript."""

    line: str
    output: str
    ok: bool


class CodingToolsEnvironment(MCPEnvironment):
    how_to_play = (
        "Do the task shown on the stage with the tools of the Tools tab (read, edit, bash…), "
        "then call submit_solution: its verify commands give the reward."
    )
    legend = {"☐": "todo pending", "◐": "todo in progress", "☑": "todo completed"}
    STEP_KIND = "io"
    CALL_TIMEOUT_S = 400.0  # a reset or a submission runs up to 10 commands of timeout_s each

    def __init__(self, limits: SandboxLimits | None = None, provider: str | None = None) -> None:
        super().__init__()
        self._limits = limits or SandboxLimits.for_package("coding_tools_env")
        self._provider = provider
        self._workspace: Workspace | None = None
        self._cwd = HOME
        self._max_steps = 100
        self._calls: deque[Call] = deque(maxlen=SHOWN_CALLS)
        self._logged = 0  # calls logged so far (a refused call is logged once)
        self._meta: dict[str, Any] = {}
        self._verdict: dict[str, Any] | None = None
        self._state = CodingToolsState(episode_id=str(uuid.uuid4()))

    # -- the tools ----------------------------------------------------------------------------

    @tool
    def bash(
        self,
        command: Annotated[str, Field(min_length=1, max_length=MAX_COMMAND_CHARS)],
        timeout: Annotated[int, Field(ge=1, le=600)] = 30,
    ) -> str:
        """Run a bash command line in the sandbox; returns stdout and stderr merged.

        Args:
            command: The command line, run where the last cd left the shell (/home/user first).
            timeout: Seconds before it is killed (at most the server's limit).
        """
        out = self._bash(command, self._cwd, timeout)
        self._cwd = out.cwd
        self._meta = {"exit_code": out.exit_code, "cwd": out.cwd, "timed_out": out.timed_out}
        return self._log(f"$ {command}", out.output, out.success)

    @tool
    def read(
        self,
        file_path: Path,
        offset: Annotated[int | None, Field(ge=1)] = None,
        limit: Annotated[int | None, Field(ge=1, le=5000)] = None,
    ) -> str:
        """Read a text file, with line numbers.

        Args:
            file_path: The file (absolute, or relative to /home/user).
            offset: The first line to show (1 = the first line of the file).
            limit: How many lines to show (2000 by default).
        """
        args = {"file_path": file_path, "offset": offset, "limit": limit}
        return self._file("read", args, f"read {file_path}")

    @tool
    def write(
        self, file_path: Path, content: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]
    ) -> str:
        """Write a file (created with its directories, or replaced).

        Args:
            file_path: The file (absolute, or relative to /home/user).
            content: The whole new content of the file.
        """
        args = {"file_path": file_path, "content": content}
        return self._file("write", args, f"write {file_path}", changes=True)

    @tool
    def edit(
        self,
        file_path: Path,
        old_string: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)],
        new_string: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)],
        replace_all: bool = False,
    ) -> str:
        """Replace a string in a file: it must occur exactly once, unless replace_all.

        Args:
            file_path: The file to change.
            old_string: The exact text to replace (with enough context to be unique).
            new_string: The text to put in its place.
            replace_all: Replace every occurrence.
        """
        edit = {"old_string": old_string, "new_string": new_string, "replace_all": replace_all}
        args = {"file_path": file_path, "edits": [edit]}
        return self._file("edit", args, f"edit {file_path}", changes=True)

    @tool
    def multi_edit(
        self,
        file_path: Path,
        edits: Annotated[list[Edit], Field(min_length=1, max_length=MAX_EDITS)],
    ) -> str:
        """Apply several edits to one file, in order; all or none are applied.

        Args:
            file_path: The file to change.
            edits: A list of {old_string, new_string, replace_all}, applied one after another.
        """
        args = {"file_path": file_path, "edits": [e.model_dump() for e in edits]}
        return self._file("multi_edit", args, f"multi_edit {file_path}", changes=True)

    @tool
    def glob(self, pattern: Path, path: Path | None = None) -> str:
        """Find files by name pattern (``**`` for any depth), e.g. ``**/*.py``.

        Args:
            pattern: The pattern, relative to path.
            path: The directory to search (/home/user by default).
        """
        return self._file("glob", {"pattern": pattern, "path": path}, f"glob {pattern}")

    @tool
    def grep(
        self,
        pattern: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)],
        path: Path | None = None,
        include: Path | None = None,
    ) -> str:
        """Search file contents with a regular expression; returns path:line: text.

        Args:
            pattern: A Python regular expression.
            path: A file or directory to search (/home/user by default).
            include: Only files whose name matches this pattern (e.g. *.py).
        """
        args = {"pattern": pattern, "path": path, "include": include}
        return self._file("grep", args, f"grep {pattern}")

    @tool
    def ls(
        self,
        path: Path = ".",
        ignore: Annotated[list[Path] | None, Field(max_length=50)] = None,
    ) -> str:
        """List a directory (directories end with /).

        Args:
            path: The directory (/home/user by default).
            ignore: Name patterns to leave out (e.g. ["*.pyc"]).
        """
        return self._file("ls", {"path": path, "ignore": ignore}, f"ls {path}")

    @tool
    def todo_write(self, todos: Annotated[list[Todo], Field(max_length=MAX_TODOS)]) -> str:
        """Replace the todo list (a plan the stage shows; it does not change the reward).

        Args:
            todos: Items {content, status: pending | in_progress | completed, id}.
        """
        self._state.todos = list(todos)
        done = sum(t.status == "completed" for t in todos)
        text = f"Todo list updated: {len(todos)} items, {done} completed."
        return self._log("todo_write", text, True)

    @tool
    def submit_solution(self) -> str:
        """Submit: the verify commands run and give the reward; the episode ends."""
        if not self._state.verify_commands:
            self._verdict = {"reward": 0.0, "pass_rate": None, "override": None}
            self._state.submitted, self._state.reward = True, 0.0
            return self._log("submit_solution", "No verify commands: nothing to check.", False)
        reward, text = self._verify()
        return self._log("submit_solution", text, reward > 0)

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolObservation:
        self._meta, self._verdict = {}, None
        if self._state.submitted and name in self._tool_specs:
            message = "the solution was submitted: reset to start a new episode"
            error = ToolError(error_type=ToolErrorType.EXECUTION_ERROR, message=message)
            return CallToolObservation(tool_name=name, error=error)
        logged = self._logged
        obs = super().call_tool(name, arguments)
        if obs.error is not None and self._logged == logged:
            self._state.last_error = obs.error.message
            self._log(f"{name} (refused)", obs.error.message, False)
        return obs

    # -- the contract -----------------------------------------------------------------------

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: TaskName | None = None,
        setup: Commands = None,
        verify: Commands = None,
        instruction: Instruction = "",
        max_steps: Steps = 100,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> CallToolObservation:
        picked = TASK_ROWS.pick(
            task_source, task_index, self.rng, "task",
            task=task, setup=setup, verify=verify, instruction=instruction,
        )  # fmt: skip
        if task is not None and (setup or verify):
            raise InvalidAction("give a shipped task or setup/verify commands, not both")
        label = None
        if picked is not None:  # a row: its own instruction and commands, nothing shipped
            instruction, setup, verify = row_task(picked)
            label, task = f"{picked.source}#{picked.index}", "free"
        self._close()
        chosen = TASKS[task or ("free" if setup or verify else DEFAULT_TASK)]
        self._state = CodingToolsState(
            episode_id=episode_id or str(uuid.uuid4()),
            task=label or (None if (setup or verify) else chosen.name),
            instruction=instruction or ("" if (setup or verify) else chosen.instruction),
            setup_commands=list(setup or chosen.setup),
            verify_commands=list(verify or chosen.verify),
        )
        self._max_steps, self._cwd = max_steps, HOME
        self._calls.clear()
        self._workspace = open_workspace(self._limits, self._provider)
        self._state.provider = self._workspace.name
        self._state.sandbox_id = f"{self._workspace.name}-{uuid.uuid4().hex[:12]}"
        self._bash(f"mkdir -p {HOME}/logs/verifier", HOME, self._limits.timeout_s)
        failed = None
        for command in self._state.setup_commands:
            out = self._bash(command, HOME, self._limits.timeout_s)
            self._state.setup_results.append(_record(command, out))
            if not out.success:
                failed = command
                break
        meta: dict[str, Any] = {
            "status": "error" if failed else "ready",
            "task": self._state.task,
            "instruction": self._state.instruction,
            "provider": self._state.provider,
            "setup_results": [r.model_dump() for r in self._state.setup_results],
            "verify_commands": self._state.verify_commands,
            "message": f"setup command failed: {failed}" if failed else _greeting(self._state),
        }
        return CallToolObservation(reward=None if failed else 0.0, done=bool(failed), metadata=meta)

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        meta = {"step_count": self._state.step_count + 1, **self._meta}
        observation.reward = 0.0
        if self._verdict is not None:
            verdict = self._verdict
            observation.reward, observation.done = verdict["reward"], True
            meta["verdict"] = verdict
            if verdict["override"] is not None:
                meta["reward_components"] = {
                    "reward_file": verdict["override"],
                    "verify_pass_rate": verdict["pass_rate"],
                }
                meta["reward_weights"] = {"reward_file": 1.0, "verify_pass_rate": 0.0}
            elif verdict["pass_rate"] is not None:
                meta["reward_components"] = {"verify_pass_rate": verdict["pass_rate"]}
                meta["reward_weights"] = {"verify_pass_rate": 1.0}
        elif self._state.step_count + 1 >= self._max_steps:
            observation.done = True
            meta["truncated"] = True
        observation.metadata = meta
        return observation

    @property
    def state(self) -> CodingToolsState:  # type: ignore[override]
        return self._state

    def close(self) -> None:
        self._close()

    # -- playground ---------------------------------------------------------------------------

    def render(self) -> View | None:
        s = self._state
        lines = [f"Task {s.task or '(your own)'}: {s.instruction or '(no instruction)'}"]
        lines.append(f"Verify commands: {len(s.verify_commands)} · sandbox: {s.provider}")
        if s.todos:
            marks = {"pending": "☐", "in_progress": "◐", "completed": "☑"}
            lines += ["", "Todos:"] + [f"  {marks[t.status]} {t.content}" for t in s.todos]
        if s.submitted:
            lines += ["", _verdict_line(s)]
            lines += [
                f"  {'✓' if r.success else '✗'} {_first_line(r.command)}" for r in s.verify_results
            ]
        lines += ["", "─" * 60]
        if not self._calls:
            lines.append("(no tool calls yet: open the Tools tab, pick a tool, press Call)")
        for call in self._calls:
            lines.append(f"{'▸' if call.ok else '✗'} {call.line}")
            lines.append(_shown(call.output))
        return Text("\n".join(lines))

    def legal_actions(self) -> list[ActionChoice]:
        """One click for a listing, a read of the task's files, and the submission."""
        task = TASKS.get(self._state.task or "")
        choices = [ActionChoice("ls /home/user", _call("ls", path=HOME))]
        for path in (task.files if task else ())[:3]:
            choices.append(
                ActionChoice(f"read {path.rsplit('/', 1)[-1]}", _call("read", file_path=path))
            )
        choices.append(ActionChoice("Submit solution", _call("submit_solution")))
        return choices

    # -- running ------------------------------------------------------------------------------

    def _ws(self) -> Workspace:
        if self._workspace is None:  # /mcp without a reset: a fresh sandbox, no task
            self._workspace = open_workspace(self._limits, self._provider)
            self._state.provider = self._workspace.name
        return self._workspace

    def _bash(self, command: str, cwd: str, timeout: float) -> Outcome:
        return self._ws().bash(command, cwd, min(float(timeout), self._limits.timeout_s))

    def _file(self, op: str, args: dict[str, Any], line: str, changes: bool = False) -> str:
        try:
            answer = files.call(self._ws(), op, args, self._limits.output_bytes)
        except files.FileToolError as exc:
            answer = {"ok": False, "text": str(exc), "path": ""}
        if not answer["ok"]:
            self._log(line, answer["text"], False)
            raise InvalidAction(answer["text"])
        if changes and answer["path"] not in self._state.files_written:
            self._state.files_written = [*self._state.files_written, answer["path"]][-KEPT_FILES:]
        return self._log(line, answer["text"], True)

    def _verify(self) -> tuple[float, str]:
        ws = self._ws()
        files.call(ws, "remove", {"file_path": REWARD_FILE}, 64)
        results = []
        for command in self._state.verify_commands:
            results.append(_record(command, self._bash(command, HOME, self._limits.timeout_s)))
        passed = sum(r.success for r in results)
        pass_rate = round(passed / len(results), 4)
        raw = files.call(ws, "peek", {"file_path": REWARD_FILE}, 256).get("text")
        override, ignored = _override(raw)
        reward = override if override is not None else pass_rate
        s = self._state
        s.verify_results, s.pass_rate, s.reward = results, pass_rate, reward
        s.reward_override, s.reward_override_ignored, s.submitted = override, ignored, True
        self._verdict = {"reward": reward, "pass_rate": pass_rate, "override": override}
        if ignored:
            self._verdict["override_ignored"] = ignored
        text = [f"Verification: {passed}/{len(results)} commands passed."]
        text += [f"{'✓' if r.success else '✗'} {_first_line(r.command)}" for r in results]
        if override is not None:
            text.append(f"The reward file says {override:g}: it replaces the pass rate.")
        elif ignored:
            text.append(f"Reward file ignored ({ignored}): the pass rate is the reward.")
        text.append(f"reward={reward:g}")
        return reward, "\n".join(text)

    def _log(self, line: str, output: str, ok: bool) -> str:
        self._calls.append(Call(line if len(line) <= 120 else line[:117] + "...", output, ok))
        self._logged += 1
        return output

    def _close(self) -> None:
        workspace, self._workspace = self._workspace, None
        if workspace is not None:
            workspace.close()


def _override(raw: str | None) -> tuple[float | None, str | None]:
    """The reward file's number, or why it is ignored; (None, None) when there is no file."""
    if raw is None:
        return None, None
    text = raw.strip()
    try:
        value = float(text)
    except ValueError:
        return None, f"not a number: {text[:40]!r}" if text else "the file is empty"
    if not math.isfinite(value):
        return None, f"not a finite number: {text[:40]!r}"
    return value, None


def _record(command: str, out: Outcome) -> CommandResult:
    error = out.sandbox_error or ("timed out" if out.timed_out else None)
    return CommandResult(
        command=command,
        output=out.output,
        exit_code=out.exit_code,
        success=out.success,
        error=error,
    )


def _verdict_line(s: CodingToolsState) -> str:
    if s.pass_rate is None:
        return "Submitted: no verify commands, reward 0."
    passed = sum(r.success for r in s.verify_results)
    text = f"Submitted: {passed}/{len(s.verify_results)} verify commands passed"
    if s.reward_override is not None:
        text += f"; reward file: {s.reward_override:g}"
    elif s.reward_override_ignored:
        text += f"; reward file ignored ({s.reward_override_ignored})"
    return text + f" → reward {s.reward:g}"


def _greeting(s: CodingToolsState) -> str:
    return (
        f"Sandbox ready ({s.provider}). Setup commands run: {len(s.setup_results)}; verify "
        f"commands: {len(s.verify_commands)}. Work in /home/user, then call submit_solution."
    )


def _first_line(command: str) -> str:
    first = command.strip().splitlines()[0] if command.strip() else ""
    return first if len(first) <= 100 else first[:97] + "..."


def _shown(output: str) -> str:
    lines = output.splitlines()
    if len(lines) <= SHOWN_LINES:
        return output
    return "\n".join([*lines[:SHOWN_LINES], f"[... {len(lines) - SHOWN_LINES} more lines]"])


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}
