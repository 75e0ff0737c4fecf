"""Python CodeAct: code as action. Each step runs a Python cell in the episode's sandboxed
interpreter (``openenv.sandbox``, the coding env's sandbox and limits), then checks the task.

Reset draws a task (:mod:`.tasks`: write ``fib``, ``flatten``, ``gcd``...) and its hidden test
inputs from the seed. Action: ``PythonCodeactAction(code=...)``; variables persist between
cells. After each cell the task's function is called in the same interpreter on the hidden
inputs and each result's ``repr`` compared with our reference solution's.

Reward, before transforms: the share of hidden tests passing after the cell (component
``tests``). Then the environment's transform (default:
:func:`.transforms.create_safe_coding_transform`) shapes it: +0.1 for a cell of at most 100
characters, -0.2 for invalid syntax, and -1.0 in place of everything for unsafe code
(``import os``, ``eval``, ``open``...). The change is the component
``transform:code_act_shaping``. The episode ends when every test passes, or after
``max_steps`` cells.

Reset options: ``task`` (a task id), ``max_steps`` (1 to 30, default 10); or ``task_source``
(a task file such as the shipped ``starter.jsonl``, or a dataset) and ``task_index`` (its row;
none: the seed picks one), whose row names a ``task`` id, looked up as ``task`` is: the task,
its hidden tests and our reference solution are ours, and nothing of a row is run.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from openenv.core import Environment, InvalidAction, Text
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.core.transforms import Transform
from openenv.sandbox.sandbox import Sandbox, SandboxLimits
from python_codeact_env.models import (
    PythonCodeactAction,
    PythonCodeactObservation,
    PythonCodeactState,
)
from python_codeact_env.server.tasks import TASK_IDS, TASKS, Task
from python_codeact_env.server.transforms import create_safe_coding_transform

MAX_STEPS = 30
SHOWN_CELLS = 12  # cells kept in the transcript
SHOWN_CHARS = 1500  # of each cell's code and output in the transcript
# A row of a task file: one of our tasks, by its id (looked up as the ``task`` option is).
# Nothing of a row is run: the task's hidden tests and reference solution are ours.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"task": ("task", "task_id", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=64)]
)


def row_task(picked: PickedTask) -> str:
    """The task id a row names; a TaskSourceError names the row and what does not fit."""
    task = picked.valid(_ROW_ID, picked.task["task"])
    if task not in TASK_IDS:
        raise picked.error(f"unknown task {task!r}; known: {', '.join(TASK_IDS)}")
    return task


@dataclass(frozen=True)
class Cell:
    """One cell of the transcript: the code and what came of it."""

    code: str
    output: str
    summary: str


class PythonCodeactEnvironment(
    Environment[PythonCodeactAction, PythonCodeactObservation, PythonCodeactState]
):
    """One task per episode, one sandboxed interpreter per episode."""

    how_to_play = (
        "Write the function the task asks for in the code box and press Send (Ctrl+Enter): "
        "each cell runs in a sandbox, then hidden tests call your function."
    )
    STEP_KIND = "io"  # a step waits on the sandbox's interpreter
    render_fps = 1

    def __init__(self, limits: SandboxLimits | None = None, transform: Transform | None = None):
        super().__init__(transform=transform or create_safe_coding_transform())
        self._limits = limits or SandboxLimits.for_package("python_codeact_env")
        self._sandbox: Sandbox | None = None
        self._task: Task = TASKS[0]
        self._inputs: list[tuple[Any, ...]] = []
        self._nonce = ""
        self._cells: list[Cell] = []
        self._state = PythonCodeactState()
        self._last = PythonCodeactObservation()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] = 10,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> PythonCodeactObservation:
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "task", task=task)
        if picked is not None:
            task = row_task(picked)
        elif task is not None and task not in TASK_IDS:
            raise InvalidAction(f"unknown task {task!r}; known: {', '.join(TASK_IDS)}")
        self._close_sandbox()
        self._task = next(t for t in TASKS if t.task_id == task) if task else self.rng.choice(TASKS)
        self._inputs = self._task.inputs(self.rng)
        self._nonce = "#codeact-" + secrets.token_hex(8) + " "
        self._cells = []
        self.rubric = None
        self._state = PythonCodeactState(
            episode_id=episode_id or str(uuid.uuid4()),
            task_id=self._task.task_id,
            max_steps=max_steps,
            task_source=picked.source if picked else None,
            task_index=picked.index if picked else None,
        )
        self._last = self._observe(message=f"Task: {self._task.prompt}")
        return self._last

    def step(self, action: PythonCodeactAction) -> PythonCodeactObservation:
        if self._sandbox is None:
            self._sandbox = Sandbox(self._limits)
        s = self._state
        result = self._sandbox.run(action.code)
        s.step_count += 1
        s.last_exit_code = result.exit_code
        passed, failures, note = self._check()
        total = len(self._inputs)
        s.solved = passed == total
        share = passed / total
        self.rubric = WeightedSum({"tests": FnRubric(lambda a, o: share, name="tests")})
        done = s.solved or s.step_count >= s.max_steps
        message = note or (
            "Solved: every hidden test passes." if s.solved else f"{passed}/{total} tests pass."
        )
        self._last = self._observe(
            stdout=result.stdout,
            stderr=result.stderr,
            exit_code=result.exit_code,
            passed=passed,
            failures=failures,
            message=message,
            done=done,
            code=action.code,
        )
        output = "\n".join(p.rstrip("\n") for p in (result.stdout, result.stderr) if p)
        self._cells = [*self._cells, Cell(action.code, output, message)][-SHOWN_CELLS:]
        return self._last

    async def step_async(self, action: PythonCodeactAction) -> PythonCodeactObservation:
        # Two sandbox runs per step: in a worker thread, never on the server's loop.
        return await asyncio.to_thread(self.step, action)

    @property
    def state(self) -> PythonCodeactState:
        return self._state

    def render(self) -> Text:
        lines = [f"TASK ({self._task.task_id}): {self._task.prompt}", ""]
        first = self._state.step_count - len(self._cells) + 1
        for number, cell in enumerate(self._cells, start=first):
            lines.append(f"In [{number}]:")
            lines += ["    " + line for line in _cut(cell.code).splitlines()]
            if cell.output:
                lines.append(_cut(cell.output))
            lines += [f"→ {cell.summary}", ""]
        if not self._cells:
            lines.append("No cell run yet: write the function in the box below and press Send.")
        return Text("\n".join(lines))

    def close(self) -> None:
        self._close_sandbox()

    # -- internals ------------------------------------------------------------------------

    def _check(self) -> tuple[int, list[str], str]:
        """Run the hidden tests in the agent's interpreter: (passed, failures, problem)."""
        assert self._sandbox is not None
        result = self._sandbox.run(_check_code(self._task.function, self._inputs, self._nonce))
        line = next((ln for ln in result.stdout.splitlines() if ln.startswith(self._nonce)), None)
        if line is None:
            why = (result.stderr.strip().splitlines() or ["no output"])[-1][:200]
            return 0, [], f"The hidden tests could not run: {why}"
        try:
            outcomes = json.loads(line[len(self._nonce) :])
        except ValueError:
            return 0, [], "The hidden tests' report was unreadable (the output was cut)."
        passed, failures = 0, []
        for args, outcome in zip(self._inputs, outcomes, strict=False):
            expected = repr(self._task.reference(*args))
            if outcome == ["ok", expected]:
                passed += 1
            elif len(failures) < 3:
                call = f"{self._task.function}({', '.join(map(repr, args))})"[:120]
                got = str(outcome[1])[:120] if len(outcome) > 1 else "?"
                failures.append(f"{call}: expected {expected[:120]}, got {got}")
        return passed, failures, ""

    def _observe(
        self,
        *,
        stdout: str = "",
        stderr: str = "",
        exit_code: int = 0,
        passed: int = 0,
        failures: list[str] | None = None,
        message: str = "",
        done: bool = False,
        code: str | None = None,
    ) -> PythonCodeactObservation:
        return PythonCodeactObservation(
            task_id=self._task.task_id,
            task=self._task.prompt,
            stdout=stdout,
            stderr=stderr,
            exit_code=exit_code,
            tests_passed=passed,
            tests_total=len(self._inputs),
            failures=failures or [],
            solved=self._state.solved,
            message=message,
            reward=0.0,
            done=done,
            metadata={"last_code": code} if code is not None else {},
        )

    def _close_sandbox(self) -> None:
        sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None:
            sandbox.close()


def _check_code(function: str, inputs: list[tuple[Any, ...]], nonce: str) -> str:
    """The cell that calls ``function`` on each input and prints the outcomes after ``nonce``."""
    return (
        "def _codeact_check():\n"
        "    import json\n"
        "    out = []\n"
        f"    for args in {inputs!r}:\n"
        "        try:\n"
        f"            out.append(['ok', repr({function}(*args))])\n"
        "        except BaseException as exc:\n"
        "            out.append(['error', (type(exc).__name__ + ': ' + str(exc))[:200]])\n"
        f"    print({nonce!r} + json.dumps(out))\n"
        "_codeact_check()\n"
        "del _codeact_check\n"
    )


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "\n… (cut)"
