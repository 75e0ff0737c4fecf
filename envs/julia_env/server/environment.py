"""Julia: write a Julia function; the task's tests run against it in a sandbox.

``reset`` picks a task (:mod:`tasks`: by ``task_id``, or by the seed; or from a task file,
``task_source`` such as the shipped ``starter.jsonl`` or a dataset, and ``task_index``, its row,
none: the seed picks one, whose row names a ``task_id``, looked up as ``task_id`` is: the
task's own tests score it and nothing of a row is run). Each ``step`` sends
``core_code`` (and optional ``test_code`` of your own): the code is loaded, every task test is
called (one failing test never hides the others), and the observation has the pass/fail line
of each test, the output, the exit code and whether the code loaded. Reward: the share of the
task's tests passed (one rubric component, ``tests``). The episode ends when all pass or after
``max_attempts`` runs.

Julia runs through :mod:`runtime` (the seam): when this server has no Julia binary, nothing
runs, ``julia_available`` is false, the reward is 0, the attempt does not count, and every
observation and the stage say that Julia is not installed and how to provide it.
"""

from __future__ import annotations

import asyncio
import textwrap
import uuid
from pathlib import Path
from typing import Annotated

from pydantic import Field, TypeAdapter

from julia_env.models import JuliaAction, JuliaObservation, JuliaState
from julia_env.server.runner import RunReport, parse_output, run_files
from julia_env.server.runtime import NOT_INSTALLED, SandboxJulia, find_julia
from julia_env.server.tasks import BY_ID, TASKS, JuliaTask
from openenv.core import Environment, InvalidAction, Text
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows

MAX_ATTEMPTS = 10
MAX_SHOWN_OUTPUT = 4000  # characters of a run's output drawn on the stage
TEXT_WIDTH = 60
# A row of a task file: one of the env's tasks, by its id (looked up as ``task_id`` is). Nothing
# of a row is run: the task's own prompt and tests are.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"task_id": ("task_id", "task", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=64)]
)


def row_task(picked: PickedTask) -> JuliaTask:
    """The task a row names; a TaskSourceError names the row and what does not fit."""
    task_id = picked.valid(_ROW_ID, picked.task["task_id"])
    if task_id not in BY_ID:
        raise picked.error(f"no task {task_id!r}; tasks: {', '.join(BY_ID)}")
    return BY_ID[task_id]


class JuliaEnvironment(Environment[JuliaAction, JuliaObservation, JuliaState]):
    how_to_play = (
        "Write the Julia function the task asks for in the box and press Send (Ctrl+Enter): "
        "it runs against the task's tests in a sandbox."
    )
    STEP_KIND = "io"  # a step waits on the Julia process

    def __init__(self) -> None:
        binary = find_julia()
        self._julia = SandboxJulia(binary) if binary else None
        self._task = TASKS[0]
        self._state = JuliaState(julia=binary or "")
        self._last = JuliaObservation()
        self._passed_share = 0.0
        tests = FnRubric(lambda action, obs: self._passed_share, "tests")
        self.rubric = WeightedSum({"tests": tests}, {"tests": 1.0})

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        max_attempts: Annotated[int, Field(ge=1, le=MAX_ATTEMPTS)] = 3,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> JuliaObservation:
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "task", task_id=task_id)
        if task_id is not None and task_id not in BY_ID:
            raise InvalidAction(f"unknown task_id {task_id!r}; one of {', '.join(BY_ID)}")
        if picked is not None:
            self._task = row_task(picked)
        else:
            self._task = BY_ID[task_id] if task_id else TASKS[self.rng.randrange(len(TASKS))]
        if self._julia is not None:
            self._julia.close()  # a fresh sandbox for the new episode
        self._passed_share = 0.0
        self._state = JuliaState(
            episode_id=episode_id or str(uuid.uuid4()),
            task_id=self._task.id,
            max_attempts=max_attempts,
            julia=self._state.julia,
            task_source=picked.source if picked else None,
            task_index=picked.index if picked else None,
        )
        first = "Write the function and send it." if self._julia else NOT_INSTALLED
        self._last = self._observation(first)
        return self._last

    def step(self, action: JuliaAction) -> JuliaObservation:
        if not action.core_code.strip():
            raise InvalidAction("core_code is empty: write the function the task asks for")
        self._state.step_count += 1
        if self._julia is None:
            self._passed_share = 0.0
            self._last = self._observation(f"Not run, and not counted: {NOT_INSTALLED}.")
            return self._last
        files, nonce = run_files(self._task, action.core_code, action.test_code)
        run = self._julia.run(files)
        report = parse_output(run.output, nonce, self._task)
        total = len(self._task.tests)
        self._passed_share = report.passed / total
        self._state.attempts += 1
        self._state.best_passed = max(self._state.best_passed, report.passed)
        left = self._state.max_attempts - self._state.attempts
        done = report.passed == total or left == 0
        self._last = self._observation(
            _message(report, total, left, run.error), report, run.exit_code, done
        )
        return self._last

    async def step_async(self, action: JuliaAction) -> JuliaObservation:
        return await asyncio.to_thread(self.step, action)  # Julia starts in seconds

    @property
    def state(self) -> JuliaState:
        return self._state

    def render(self) -> Text:
        return Text(render_text(self._task, self._state, self._last))

    def close(self) -> None:
        if self._julia is not None:
            self._julia.close()

    def _observation(
        self,
        message: str,
        report: RunReport | None = None,
        exit_code: int | None = None,
        done: bool = False,
    ) -> JuliaObservation:
        task, state = self._task, self._state
        return JuliaObservation(
            task_id=task.id,
            prompt=task.prompt,
            signature=task.signature,
            julia_available=self._julia is not None,
            stdout=report.output if report else "",
            stderr=report.compile_error if report else "",
            exit_code=exit_code,
            code_compiles=report.compiled if report else None,
            tests_passed=report.passed if report else 0,
            tests_failed=report.failed if report else 0,
            test_results=report.results if report else [],
            attempts_remaining=state.max_attempts - state.attempts,
            message=message,
            done=done,
        )


def _message(report: RunReport, total: int, left: int, error: str) -> str:
    why = f" ({error})" if error else ""
    if report.compile_error:
        head = f"Your code did not load: {report.compile_error}{why}."
    elif not report.finished:
        head = f"The run ended before the tests finished{why or ''}."
    else:
        head = f"{report.passed}/{total} tests passed{why}."
    if report.passed == total:
        return head + " All tests pass!"
    return head + (f" {left} run{'s' if left != 1 else ''} left." if left else " No runs left.")


def render_text(task: JuliaTask, state: JuliaState, obs: JuliaObservation) -> str:
    """The stage: the task, its tests, then the last run's results and output."""
    parts = [f"Julia · {task.id} · runs {state.attempts}/{state.max_attempts}"]
    if not obs.julia_available:
        parts += [
            "",
            "⚠ JULIA IS NOT INSTALLED ON THIS SERVER",
            textwrap.fill(NOT_INSTALLED, TEXT_WIDTH),
        ]
    parts += ["", "TASK", textwrap.fill(task.prompt, TEXT_WIDTH, initial_indent="  ",
                                        subsequent_indent="  "),
              "", f"  {task.signature}", "", "TESTS"]  # fmt: skip
    parts += [f"  {name}: {expr}" for name, expr in task.tests]
    if obs.test_results:
        parts += ["", f"RESULTS: {obs.tests_passed}/{len(task.tests)} passed"]
        parts += [f"  {'✓' if r.endswith(' PASS') else '✗'} {r}" for r in obs.test_results]
    output = (obs.stdout + ("\n" + obs.stderr if obs.stderr else "")).strip()
    if output:
        parts += ["", "OUTPUT", output[:MAX_SHOWN_OUTPUT]]
    if obs.message != NOT_INSTALLED:  # drawn once, above the task
        parts += ["", textwrap.fill(obs.message, TEXT_WIDTH)]
    return "\n".join(parts)
