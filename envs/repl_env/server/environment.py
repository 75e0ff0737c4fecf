"""REPL: a persistent Python interpreter per session, with tasks the environment checks.

Actions: ``REPLAction(code=...)`` runs one cell (variables persist between the steps of an
episode; the value of a last expression is printed, as in a REPL); ``REPLAction(is_final=True,
final_answer=...)`` submits an answer. From code, ``FINAL(value)``, ``FINAL_VAR("name")``,
printing ``FINAL(value)`` on a line of its own, or ``answer = {"content": ..., "ready": True}``
submit too (the reference's patterns). A submission ends the episode; so does the last of
``max_iterations`` steps.

The code runs in ``openenv.sandbox`` (the one sandbox of the framework, that of coding_env):
a process of its own per session with time, CPU, memory, file and process limits, a private
working directory, namespaces of its own and no network. A cell that hits a limit fails with
the limit named in ``stderr``; the interpreter is then restarted (its variables are gone, the
helpers and ``context`` come back) and the episode goes on.

Reset options: ``task`` (a shipped task, or ``free``), ``context`` / ``task_prompt`` /
``expected_answer`` (a task of your own, with ``free``), ``max_iterations``. Or, in place of
``task``, ``task_source`` (a task file such as the shipped ``starter.jsonl``, or a dataset) and
``task_index`` (its row; none: the seed picks one), whose row names a ``task``, taken as the
``task`` option is (``context`` and the others stay reset options); nothing of a row is run.

Reward: see ``rubrics.py`` (1.0 for an accepted answer, 0.0 for a wrong one, -0.05 for a
failing cell, -0.1 for running out of steps).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from openenv.core import Environment, InvalidAction, Text
from openenv.core.rubrics import Rubric
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.sandbox import SandboxLimits
from repl_env.models import CodeBlockResult, REPLAction, REPLObservation, REPLState
from repl_env.server.repl import Cell, Repl
from repl_env.server.rubrics import repl_rubric
from repl_env.server.tasks import BUILDERS, Task, answers_match, outputs_match
from repl_env.server.transcript import transcript

TaskName = Literal["free", "word_count", "sum_primes", "fizzbuzz", "run_length"]
MAX_CONTEXT_CHARS = 200_000
PREVIEW_CHARS = 500
MAX_ITERATIONS = 200
HOW_TO_SUBMIT = "Submit with FINAL(answer), or answer['content'] = ...; answer['ready'] = True."
# A row of a task file: one of our tasks, by name (taken as the ``task`` option is). Nothing of
# a row is run: the task, its data and its checks are built by us from the seed.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"task": ("task", "task_id", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_TASK: TypeAdapter[str] = TypeAdapter(TaskName)


def row_task(picked: PickedTask) -> str:
    """The task a row names; a TaskSourceError names the row and what does not fit."""
    return picked.valid(_ROW_TASK, picked.task["task"])


def _call_timeout() -> float | None:
    """A step runs up to four sandbox calls (helpers, cell, read-back, hidden tests), each
    bounded by the sandbox's wall-clock limit: the server must wait for all of them."""
    try:
        return max(60.0, 4 * SandboxLimits.for_package("repl_env").timeout_s + 10)
    except ValueError:  # a bad CODING_* value: the error is raised where sessions start
        return None


class REPLEnvironment(Environment[REPLAction, REPLObservation, REPLState]):
    """One interpreter per session; ``rubric`` replaces the default reward."""

    how_to_play = (
        "Type Python at the >>> prompt and press Send; pick a task in Reset options and "
        "answer it with FINAL(...) to be scored."
    )

    CALL_TIMEOUT_S = _call_timeout()

    def __init__(self, limits: SandboxLimits | None = None, rubric: Rubric | None = None) -> None:
        self._limits = limits or SandboxLimits.for_package("repl_env")
        self.rubric = rubric or repl_rubric()
        self._repl: Repl | None = None
        self._task = Task("free", "")
        self._state = REPLState()
        self._cells: list[tuple[str, Cell]] = []
        self._ending = ""

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: TaskName = "free",
        context: Annotated[
            str,
            Field(
                max_length=MAX_CONTEXT_CHARS,
                description="text loaded as the variable `context` (free task)",
                json_schema_extra={"format": "textarea"},
            ),
        ] = "",
        task_prompt: Annotated[str, Field(max_length=10_000)] = "",
        expected_answer: Annotated[str | None, Field(max_length=10_000)] = None,
        max_iterations: Annotated[int, Field(ge=1, le=MAX_ITERATIONS)] | None = None,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> REPLObservation:
        # ``task`` is given when it is not the default (free)
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "task", task=task != "free")
        if picked is not None:
            task = row_task(picked)
        self._close_repl()
        self._task = self._choose(task, context, task_prompt, expected_answer)
        limit = max_iterations or _default_iterations()
        self._state = REPLState(
            episode_id=episode_id or str(uuid.uuid4()),
            context=self._task.context,
            task_prompt=self._task.prompt,
            max_iterations=limit,
            namespace_keys=self._initial_names(),
            task=self._task.name,
            task_source=picked.source if picked else None,
            task_index=picked.index if picked else None,
        )
        self._repl = Repl(self._limits, self._task.context)
        self._cells, self._ending = [], ""
        lines = ["REPL ready: a fresh Python interpreter; variables persist until reset."]
        if self._task.context is not None:
            lines.append(f"`context` holds {len(self._task.context)} characters.")
        if self._task.prompt:
            lines.append(f"Task: {self._task.prompt}")
        lines.append(HOW_TO_SUBMIT)
        message = "\n".join(lines)
        return self._observe(CodeBlockResult(stdout=message), {"message": message}, reward=0.0)

    def step(self, action: REPLAction) -> REPLObservation:
        s = self._state
        s.step_count += 1
        s.iteration += 1
        if action.is_final:
            result = CodeBlockResult(stdout="Final answer submitted.")
            return self._finish(action.final_answer or "", result)
        cell = self._run(action.code)
        result = CodeBlockResult(
            stdout=cell.stdout,
            stderr=cell.stderr,
            locals_snapshot=cell.changed,
            execution_time=round(cell.seconds, 6),
            success=cell.exit_code == 0,
            exception=cell.exception,
        )
        if cell.final is not None:
            return self._finish(cell.final, result)
        if s.iteration >= s.max_iterations:
            self._ending = f"Maximum iterations ({s.max_iterations}) reached without an answer."
            return self._observe(result, {"final_answer": None, "message": self._ending}, True)
        return self._observe(result, {"execution_time": result.execution_time})

    async def step_async(self, action: REPLAction) -> REPLObservation:
        # A cell may run for seconds: in a worker thread, never on the server's event loop.
        return await asyncio.to_thread(self.step, action)

    @property
    def state(self) -> REPLState:
        return self._state

    def render(self) -> Text | None:
        if self._repl is None:
            return None
        return Text(transcript(self._state, self._cells, self._ending))

    def close(self) -> None:
        self._close_repl()

    # -- internals ------------------------------------------------------------------------

    def _choose(self, task: str, context: str, prompt: str, expected: str | None) -> Task:
        if task == "free":
            text = context or os.environ.get("REPL_CONTEXT", "")[:MAX_CONTEXT_CHARS]
            prompt = prompt or os.environ.get("REPL_TASK_PROMPT", "")
            return Task("free", prompt, context=text or None, expected=expected)
        if task not in BUILDERS:
            raise InvalidAction(f"task must be one of free, {', '.join(BUILDERS)}; got {task!r}")
        if context or prompt or expected is not None:
            raise InvalidAction(
                f"task={task!r} brings its own context, prompt and answer: "
                "use task='free' to set context, task_prompt or expected_answer"
            )
        return BUILDERS[task](self.rng)

    def _initial_names(self) -> list[str]:
        return ["answer", "context"] if self._task.context is not None else ["answer"]

    def _run(self, code: str) -> Cell:
        assert self._repl is not None
        cell = self._repl.run(code)
        s = self._state
        s.namespace_keys = cell.names if not cell.restarted else self._initial_names()
        s.total_execution_time = round(s.total_execution_time + cell.seconds, 6)
        self._cells.append((code, cell))
        return cell

    def _finish(self, answer: str, result: CodeBlockResult) -> REPLObservation:
        self._state.final_answer = answer
        verdict = self._check(answer)
        shown = "accepted" if verdict.get("correct") else "not accepted"
        if verdict.get("correct") is None:
            shown = "recorded (this task has no expected answer)"
        self._ending = f"Final answer {answer!r}: {shown}."
        meta = {"final_answer": answer, "message": self._ending, **verdict}
        return self._observe(result, meta, done=True)

    def _check(self, answer: str) -> dict[str, Any]:
        task = self._task
        if task.function is not None:
            assert self._repl is not None
            found = self._repl.check(task.function, task.cases)
            if "error" in found:
                return {"correct": False, "tests": f"0/{len(task.cases)}", "why": found["error"]}
            passed = outputs_match(found.get("values", []), task.outputs)
            return {"correct": passed == len(task.cases), "tests": f"{passed}/{len(task.cases)}"}
        if task.expected is None:
            return {"correct": None}
        return {"correct": answers_match(answer, task.expected), "expected_answer": task.expected}

    def _observe(
        self,
        result: CodeBlockResult,
        metadata: dict[str, Any],
        done: bool = False,
        reward: float | None = None,
    ) -> REPLObservation:
        s = self._state
        context = self._task.context
        return REPLObservation(
            result=result,
            context_preview=context[:PREVIEW_CHARS] if context is not None else None,
            context_length=len(context or ""),
            available_variables=list(s.namespace_keys),
            iteration=s.iteration,
            max_iterations=s.max_iterations,
            done=done,
            reward=reward,
            metadata={"task_prompt": s.task_prompt, **metadata},
        )

    def _close_repl(self) -> None:
        repl, self._repl = self._repl, None
        if repl is not None:
            repl.close()


def _default_iterations() -> int:
    value = os.environ.get("REPL_MAX_ITERATIONS", "30")
    try:
        return max(1, min(MAX_ITERATIONS, int(value)))
    except ValueError:
        raise ValueError(f"$REPL_MAX_ITERATIONS must be a whole number, got {value!r}") from None
