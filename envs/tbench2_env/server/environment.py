"""tbench2_env: Terminal-Bench tasks in a terminal, scored by each task's own tests.

Actions (:class:`~tbench2_env.models.Tbench2Action`, the reference's): ``exec`` (a command
line, run where the last ``cd`` left the shell: ``/app`` at first; with ``block=False`` it
starts a background session), ``write`` / ``view`` / ``wait`` / ``kill`` (a background
session's input, output and end; Docker mode), ``write_file``, ``evaluate`` (the task's tests
run: reward 1.0 when they all pass, else 0.0; the episode ends) and ``close``.

Reset options: ``task_id`` (a shipped task, or one of ``TB2_TASKS_DIR`` / ``TB2_REPO_URL``:
see :mod:`~tbench2_env.server.taskset`; ``hello-world`` by default), ``task_path`` (a task
folder under those roots), ``max_steps``; or ``task_source`` (a task file such as the shipped
``starter.jsonl``, or a dataset) and ``task_index`` (its row; none: the seed picks one), whose
row names a ``task_id`` of those roots and may give the instruction in other words (the task's
own tests still score it: a row never brings commands of its own). The execution mode is the
server's ``TB2_MODE`` (:mod:`~tbench2_env.server.runners`). A bad action (an empty command,
an unknown session, a mode that cannot do it) is an observation with ``success=False`` and
``error``; the episode goes on.
"""

from __future__ import annotations

import dataclasses
import re
import time
import uuid
from collections import deque
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from openenv.core import ActionChoice, Environment, InvalidAction, Text, View
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.sandbox import SandboxLimits
from tbench2_env.models import Tbench2Action, Tbench2Observation, Tbench2State
from tbench2_env.server import taskset
from tbench2_env.server.runners import Outcome, Runner, RunnerError, open_runner
from tbench2_env.server.taskset import WORKDIR, Task, TaskNotFound

MINITEST = Path(__file__).with_name("minitest.py").read_bytes()
REWARD_FILE = "/logs/verifier/reward.txt"  # Terminal-Bench 2's tests may write the reward here
SHOWN_ENTRIES = 30
SHOWN_LINES = 40
READ_LIMIT = 32_000
MAX_SESSIONS = 8
_RESULT = re.compile(r"^(PASSED|FAILED|ERROR)\s+(\S+)")
MAX_INSTRUCTION_CHARS = 16_000
Steps = Annotated[int, Field(ge=1, le=1000, description="actions before the episode is cut")]
TaskId = Annotated[str | None, Field(max_length=100)]
# A row of a task file: the task (an id looked up as ``task_id`` is) and, optionally, its
# instruction in other words. Nothing of a row is run: the task's own files are.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(
        fields={"task_id": ("task_id", "task", "id"), "instruction": ("instruction", "prompt")},
        defaults={"instruction": None},
    ),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=100)]
)
_ROW_INSTRUCTION: TypeAdapter[str | None] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=MAX_INSTRUCTION_CHARS)] | None
)


def row_task(picked: PickedTask) -> Task:
    """The task a row names (its instruction replaced when the row gives one); a
    TaskSourceError names the row and what does not fit."""
    task_id = picked.valid(_ROW_ID, picked.task["task_id"])
    instruction = picked.valid(_ROW_INSTRUCTION, picked.task["instruction"])
    try:
        task = taskset.find(task_id)
    except TaskNotFound as exc:
        raise picked.error(str(exc)) from None
    return dataclasses.replace(task, instruction=instruction.strip()) if instruction else task


@dataclass(frozen=True)
class Entry:
    """One line of the terminal transcript: the prompt's directory, the input, the output."""

    cwd: str
    command: str
    output: str


class Tbench2Environment(Environment[Tbench2Action, Tbench2Observation, Tbench2State]):
    how_to_play = (
        "Do the task written above the terminal: type commands in the Terminal tab (Enter runs "
        "them), then press Evaluate: the task's tests give reward 1 when they all pass."
    )
    STEP_KIND = "io"
    CALL_TIMEOUT_S = 600.0  # Docker mode builds the task's image at its first reset

    def __init__(self, limits: SandboxLimits | None = None, mode: str | None = None) -> None:
        super().__init__()
        self._limits = limits or SandboxLimits.for_package("tbench2_env")
        self._mode = mode
        self._runner: Runner | None = None
        self._task: Task | None = None
        self._max_steps = 200
        self._offsets: dict[str, int] = {}
        self._transcript: deque[Entry] = deque(maxlen=SHOWN_ENTRIES)
        self._state = Tbench2State()

    # -- the contract -----------------------------------------------------------------------

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: TaskId = None,
        task_path: Annotated[str | None, Field(max_length=1000)] = None,
        max_steps: Steps = 200,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> Tbench2Observation:
        picked = TASK_ROWS.pick(
            task_source, task_index, self.rng, "task", task_id=task_id, task_path=task_path
        )
        self._close()
        try:
            task = row_task(picked) if picked else taskset.find(task_id, task_path)
        except TaskNotFound as exc:
            raise InvalidAction(str(exc)) from None
        try:
            self._runner = open_runner(task, self._limits, self._mode)
        except RunnerError as exc:
            raise InvalidAction(str(exc)) from None
        self._task, self._max_steps = task, max_steps
        self._offsets.clear()
        self._transcript.clear()
        self._state = Tbench2State(
            episode_id=episode_id or str(uuid.uuid4()),
            task_id=task.task_id,
            task_path=str(task.path),
            mode=self._runner.mode,
            instruction=task.instruction,
            difficulty=task.difficulty,
            category=task.category,
            task_source=picked.source if picked else None,
            task_index=picked.index if picked else None,
        )
        text = (
            f"Task {task.task_id} ({task.difficulty or 'unrated'}, {self._runner.mode} mode). "
            "Work in /app, then send action_type='evaluate'."
        )
        return self._obs("reset", text, reward=0.0, info=self._about())

    def step(self, action: Tbench2Action) -> Tbench2Observation:  # type: ignore[override]
        self._state.step_count += 1
        try:
            obs = self._act(action)
        except (InvalidAction, RunnerError) as exc:
            message = exc.message if isinstance(exc, InvalidAction) else str(exc)
            self._state.last_error = message
            self._transcript.append(Entry(self._state.cwd, _shown_input(action), f"✗ {message}"))
            obs = self._obs(action.action_type, "", success=False, error=message)
        if not obs.done and self._state.step_count >= self._max_steps:
            obs.done = True
            obs.info["truncated"] = True
        return obs

    @property
    def state(self) -> Tbench2State:
        return self._state

    def close(self) -> None:
        self._close()

    # -- playground -----------------------------------------------------------------------

    def render(self) -> View | None:
        s = self._state
        head = f"Task {s.task_id} · {s.difficulty or 'unrated'} · {s.category or 'terminal'}"
        lines = [f"{head} · {s.mode} mode", s.instruction, ""]
        if s.evaluated:
            passed = sum(v == "passed" for v in s.tests.values())
            lines.append(f"Tests: {passed}/{len(s.tests)} passed → reward {s.reward:g}")
            lines += [f"  {'✓' if v == 'passed' else '✗'} {k}" for k, v in s.tests.items()]
            lines.append("")
        lines.append("─" * 60)
        if not self._transcript:
            lines.append(f"{WORKDIR} $ (type a command in the Terminal tab)")
        for entry in self._transcript:
            lines.append(f"{entry.cwd} $ {entry.command}")
            if entry.output:
                lines.append(_shown(entry.output))
        return Text("\n".join(lines))

    def legal_actions(self) -> list[ActionChoice]:
        """A few commands one click away (any command may be typed), and the evaluation."""
        commands = ("ls -F", "pwd", f"cd {WORKDIR}")
        choices = [ActionChoice(f"$ {c}", {"action_type": "exec", "command": c}) for c in commands]
        return [*choices, ActionChoice("Evaluate", {"action_type": "evaluate"})]

    # -- actions ----------------------------------------------------------------------------

    def _act(self, action: Tbench2Action) -> Tbench2Observation:
        kind = action.action_type
        if self._runner is None or self._task is None:
            raise InvalidAction("the episode is closed: reset to start a new one")
        if kind == "exec" and action.block:
            return self._exec(action.command)
        if kind == "exec":
            return self._start(action)
        if kind in ("write", "view", "wait", "kill"):
            return self._session(action)
        if kind == "write_file":
            return self._write_file(action.file_path, action.content)
        if kind == "evaluate":
            return self._evaluate()
        self._close()  # close
        self._transcript.append(Entry(self._state.cwd, "(close)", "the episode is over"))
        return self._obs("close", "Closed.", reward=0.0, done=True)

    def _exec(self, command: str) -> Tbench2Observation:
        if not command.strip():
            raise InvalidAction("exec needs a command (e.g. 'ls -la')")
        assert self._runner is not None and self._task is not None
        where = self._state.cwd
        out = self._runner.exec(command, where, self._task.agent_timeout_s)
        self._state.cwd = out.cwd
        self._state.commands_run += 1
        self._transcript.append(Entry(where, command, out.output))
        return self._obs("exec", out.output, success=out.success, info=_info(out))

    def _start(self, action: Tbench2Action) -> Tbench2Observation:
        if not action.command.strip():
            raise InvalidAction("exec needs a command (e.g. 'python3 -i')")
        if len(self._state.sessions) >= MAX_SESSIONS:
            raise InvalidAction(f"at most {MAX_SESSIONS} background sessions: kill one first")
        assert self._runner is not None
        sid = action.session_id or f"s{len(self._offsets) + 1}"
        if sid in self._state.sessions:
            raise InvalidAction(f"session {sid!r} is running: kill it or pick another name")
        self._runner.start_session(sid, action.command, self._state.cwd)
        self._offsets[sid] = 0
        self._state.sessions = [*self._state.sessions, sid]
        self._transcript.append(Entry(self._state.cwd, f"{action.command} &  [{sid}]", ""))
        return self._obs("exec", f"Started session {sid}.", session_id=sid)

    def _session(self, action: Tbench2Action) -> Tbench2Observation:
        sid = action.session_id
        if not sid:
            raise InvalidAction(f"{action.action_type} needs a session_id")
        if sid not in self._state.sessions:
            known = ", ".join(self._state.sessions) or "none"
            raise InvalidAction(f"no session {sid!r} (running: {known})")
        assert self._runner is not None
        kind = action.action_type
        if kind == "kill":
            self._runner.kill(sid)
            self._state.sessions = [s for s in self._state.sessions if s != sid]
            self._transcript.append(Entry(self._state.cwd, f"(kill {sid})", ""))
            return self._obs(kind, f"Session {sid} killed.", session_id=sid)
        if kind == "write":
            self._runner.send(sid, action.command)
            self._transcript.append(Entry(f"[{sid}]", action.command.rstrip("\n"), ""))
        if kind == "wait":
            time.sleep(action.wait_seconds if action.wait_seconds is not None else 1.0)
        text, self._offsets[sid], code = self._runner.read(sid, self._offsets[sid], READ_LIMIT)
        info: dict[str, Any] = {"exit_code": code, "running": code is None}
        if text and kind != "write":
            self._transcript.append(Entry(f"[{sid}]", f"({kind})", text))
        return self._obs(kind, text, session_id=sid, info=info)

    def _write_file(self, file_path: str, content: str) -> Tbench2Observation:
        if not file_path.strip():
            raise InvalidAction("write_file needs a file_path")
        path = PurePosixPath(file_path if file_path.startswith("/") else f"{WORKDIR}/{file_path}")
        if ".." in path.parts:
            raise InvalidAction("file_path may not contain '..'")
        assert self._runner is not None
        if self._runner.mode == "local" and not str(path).startswith((f"{WORKDIR}/", "/tmp/")):
            raise InvalidAction("local mode writes under /app or /tmp only")
        self._runner.put_files(str(path.parent), {path.name: (content.encode(), False)})
        text = f"Wrote {len(content.encode())} bytes to {path}"
        self._transcript.append(Entry(self._state.cwd, f"(write_file {path})", text))
        return self._obs("write_file", text)

    def _evaluate(self) -> Tbench2Observation:
        assert self._runner is not None and self._task is not None
        task, runner = self._task, self._runner
        files = {rel: (data, rel.endswith(".sh")) for rel, data in task.test_files().items()}
        files["minitest.py"] = (MINITEST, False)
        runner.put_files(runner.test_dir, files)
        if task.layout == "tb2":
            runner.exec(f"rm -f {REWARD_FILE}; mkdir -p /logs/verifier", WORKDIR, 10)
        script = f"bash {runner.test_dir}/{task.test_script}"
        out = runner.exec(script, WORKDIR, task.test_timeout_s, env={"TEST_DIR": runner.test_dir})
        tests = _parse_tests(out.output)
        reward = 1.0 if out.success and all(v == "passed" for v in tests.values()) else 0.0
        if task.layout == "tb2":
            written = runner.exec(f"cat {REWARD_FILE} 2>/dev/null", WORKDIR, 10).output.strip()
            try:
                reward = float(written.splitlines()[0]) if written else reward
            except ValueError:
                pass
        s = self._state
        s.evaluated, s.tests, s.reward = True, tests, reward
        share = sum(v == "passed" for v in tests.values()) / len(tests) if tests else 0.0
        info = {
            **_info(out),
            "tests": tests,
            "reward_components": {"all_tests_pass": reward, "tests_passed_share": round(share, 4)},
            "reward_weights": {"all_tests_pass": 1.0, "tests_passed_share": 0.0},
        }
        self._transcript.append(Entry(WORKDIR, "(evaluate: the task's tests)", out.output))
        return self._obs("evaluate", out.output, reward=reward, done=True, info=info)

    # -- helpers ----------------------------------------------------------------------------

    def _obs(
        self,
        kind: str,
        output: str,
        *,
        reward: float = 0.0,
        done: bool = False,
        success: bool = True,
        error: str | None = None,
        session_id: str | None = None,
        info: dict[str, Any] | None = None,
    ) -> Tbench2Observation:
        info = dict(info or {})
        metadata: dict[str, Any] = {"step_count": self._state.step_count}
        for key in ("reward_components", "reward_weights"):
            if key in info:
                metadata[key] = info[key]
        return Tbench2Observation(
            instruction=self._state.instruction,
            output=output,
            success=success,
            error=error,
            task_id=self._state.task_id,
            task_path=self._state.task_path,
            session_id=session_id,
            action_type=kind,
            info=info,
            reward=reward,
            done=done,
            metadata=metadata,
        )

    def _about(self) -> dict[str, Any]:
        task = self._task
        assert task is not None
        return {
            "mode": self._state.mode,
            "difficulty": task.difficulty,
            "category": task.category,
            "tags": list(task.tags),
            "layout": task.layout,
            "shipped": sorted(taskset.shipped()),
        }

    def _close(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.close()
        self._state.sessions = []


def _info(out: Outcome) -> dict[str, Any]:
    return {"exit_code": out.exit_code, "cwd": out.cwd, "timed_out": out.timed_out}


def _parse_tests(output: str) -> dict[str, str]:
    """Each test's verdict from pytest's ``-rA`` summary lines (or the stand-in's)."""
    tests: dict[str, str] = {}
    for line in output.splitlines():
        match = _RESULT.match(line.strip())
        if match:
            name = match.group(2).split("::", 1)[-1]
            tests[name] = "passed" if match.group(1) == "PASSED" else "failed"
    return tests


def _shown_input(action: Tbench2Action) -> str:
    return action.command or f"({action.action_type})"


def _shown(output: str) -> str:
    lines = output.splitlines()
    if len(lines) <= SHOWN_LINES:
        return output
    return "\n".join([*lines[:SHOWN_LINES], f"[... {len(lines) - SHOWN_LINES} more lines]"])
