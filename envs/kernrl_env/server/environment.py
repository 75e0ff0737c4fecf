"""KernRL: kernel optimisation. The agent writes a Triton kernel for a PyTorch op; each attempt
is graded on seeded random inputs against the reference, then timed against a naive baseline.

Reset draws a task (:mod:`.tasks`: vector add, ReLU, row softmax, small matmul, layer norm) from
the seed (or the one a ``task_source`` row names: a task file such as the shipped
``starter.jsonl``, or a dataset, and ``task_index``, its row, none: the seed picks one; a row
names a ``task``, looked up as ``task`` is, and nothing of it is run), and a seed for the
inputs. Action: ``KernrlAction(source=...)``, a Python file with
``@triton.jit`` kernel(s) and ``solve(*inputs)`` returning the output tensor. Each attempt runs
:mod:`.harness` in a FRESH sandbox (``openenv.sandbox``: time, memory, processes, no network,
its directory removed afterwards): the submission never runs in the server process, and no
attempt sees what an earlier one left.

Reward per attempt: 0 unless the output matches the reference (``torch.allclose`` with the
task's tolerance, finite values, computed by a Triton kernel: torch calls outside kernels are
refused but for allocations and shapes). A correct kernel earns 0.5 (component ``correct``)
plus up to 0.5 for its speed-up over the baseline kernel (component ``speedup``:
``0.5 * clamp(log(speedup) / log(4), 0, 1)``, full at 4x). Without a GPU the kernels run through
Triton's interpreter on the CPU (``TRITON_INTERPRET=1``) and every timing is an *interpreter
timing (CPU)*, which says how many programs and block operations a kernel costs, not how fast
it would be on a GPU. With CUDA visible to the sandbox the kernels are compiled for the GPU and
timed with ``triton.testing.do_bench`` (that path is not tested here: no GPU).

The episode ends after ``max_attempts`` attempts (reset option, 1 to 10, default 3) or at full
reward. Compile and runtime errors come back as the observation's ``error`` and ``traceback``
(its tail), reward 0, and the episode goes on.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import secrets
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field, TypeAdapter

from kernrl_env.models import KernrlAction, KernrlObservation, KernrlState
from kernrl_env.server.tasks import TASK_IDS, TASKS, Task
from openenv.core import Environment, InvalidAction, Text
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.sandbox.sandbox import Sandbox, SandboxLimits

HARNESS = Path(__file__).with_name("harness.py").read_text(encoding="utf-8")
MAX_ATTEMPTS = 10
REPEATS = 3  # timed runs of each kernel, the median kept
TAIL_LINES = 12  # of a traceback
FULL_SPEEDUP = 4.0
INTERPRETER = "interpreter timings (CPU)"
GPU = "GPU timings (CUDA)"

# A row of a task file: one of the env's tasks, by its id (looked up as ``task`` is). Nothing of
# a row is run: the task's own reference, inputs and tolerance grade the kernel.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"task": ("task", "task_id", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=64)]
)


def row_task(picked: PickedTask) -> Task:
    """The task a row names; a TaskSourceError names the row and what does not fit."""
    task_id = picked.valid(_ROW_ID, picked.task["task"])
    if task_id not in TASK_IDS:
        raise picked.error(f"no task {task_id!r}; tasks: {', '.join(TASK_IDS)}")
    return next(t for t in TASKS if t.task_id == task_id)


@dataclass(frozen=True)
class Graded:
    """What came of one attempt."""

    correct: bool = False
    max_abs_error: float | None = None
    kernel_s: float | None = None
    baseline_s: float | None = None
    torch_s: float | None = None
    mode: str = ""
    error: str = ""
    traceback: str = ""

    @property
    def speedup(self) -> float | None:
        if self.correct and self.kernel_s and self.baseline_s:
            return self.baseline_s / self.kernel_s
        return None

    @property
    def speed_score(self) -> float:
        speedup = self.speedup
        if not speedup or speedup <= 1.0:
            return 0.0
        return min(1.0, math.log(speedup) / math.log(FULL_SPEEDUP))

    @property
    def reward(self) -> float:
        return 0.5 * self.correct + 0.5 * self.speed_score


class KernrlEnvironment(Environment[KernrlAction, KernrlObservation, KernrlState]):
    """One task per episode; each attempt graded in a fresh sandbox."""

    how_to_play = (
        "Edit the Triton kernel in the code box (start from the task's template) and press "
        "Send: it is checked against PyTorch, then timed against a naive baseline kernel."
    )
    STEP_KIND = "io"  # a step waits on the sandbox
    render_fps = 1

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        super().__init__()
        self._limits = limits or SandboxLimits.for_package("kernrl_env")
        self._task: Task = TASKS[0]
        self._input_seed = 0
        self._history: list[tuple[int, Graded]] = []
        self._source = ""  # the last attempt's source: the code box opens with it
        self._state = KernrlState()
        self._last = KernrlObservation()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        max_attempts: Annotated[int, Field(ge=1, le=MAX_ATTEMPTS)] = 3,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> KernrlObservation:
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "task", task=task)
        if task is not None and task not in TASK_IDS:
            raise InvalidAction(f"unknown task {task!r}; known: {', '.join(TASK_IDS)}")
        if not 1 <= int(max_attempts) <= MAX_ATTEMPTS:
            raise InvalidAction(f"max_attempts must be 1 to {MAX_ATTEMPTS}, got {max_attempts}")
        if picked is not None:
            self._task = row_task(picked)
        elif task:
            self._task = next(t for t in TASKS if t.task_id == task)
        else:
            self._task = self.rng.choice(TASKS)
        self._input_seed = self.rng.randrange(2**31)
        self._history = []
        self._source = ""
        self.rubric = None
        self._state = KernrlState(
            episode_id=episode_id or str(uuid.uuid4()),
            task_id=self._task.task_id,
            max_attempts=int(max_attempts),
            task_source=picked.source if picked else None,
            task_index=picked.index if picked else None,
        )
        self._last = self._observe(
            Graded(),
            message=f"Task: {self._task.title}. Write {self._task.signature} with Triton.",
        )
        return self._last

    def step(self, action: KernrlAction) -> KernrlObservation:
        s = self._state
        if s.attempts >= s.max_attempts:
            raise InvalidAction("no attempts left in this episode: reset to start another")
        if not action.source.strip():
            graded = Graded(error="empty source: write @triton.jit kernel(s) and solve(...)")
        elif (problem := _syntax_error(action.source)) is not None:
            graded = problem
        else:
            graded = self._grade(action.source)
        self._source = action.source
        s.attempts += 1
        s.step_count += 1
        s.best_reward = max(s.best_reward, graded.reward)
        s.solved = s.solved or graded.correct
        self._history = [*self._history, (s.attempts, graded)][-MAX_ATTEMPTS:]
        self.rubric = WeightedSum(
            {
                "correct": FnRubric(lambda a, o: float(graded.correct), name="correct"),
                "speedup": FnRubric(lambda a, o: graded.speed_score, name="speedup"),
            },
            [0.5, 0.5],
        )
        done = s.attempts >= s.max_attempts or graded.reward >= 1.0
        self._last = self._observe(graded, message=_summary(graded), done=done)
        return self._last

    async def step_async(self, action: KernrlAction) -> KernrlObservation:
        # A sandbox run of seconds: in a worker thread, never on the server's loop.
        return await asyncio.to_thread(self.step, action)

    @property
    def state(self) -> KernrlState:
        return self._state

    def action_draft(self) -> dict[str, str]:
        """The code box opens with the task's template, then with the last attempt."""
        return {"source": self._source or self._task.starter}

    def render(self) -> Text:
        t, s = self._task, self._state
        lines = [
            f"TASK ({t.task_id}): {t.title}: {t.description}",
            f"inputs (float32): {t.shapes}",
            f"reference (PyTorch): {t.reference}    tolerance: atol={t.atol:g} rtol={t.rtol:g}",
            f"define: {t.signature} -> output tensor, computed by your @triton.jit kernel(s)",
            f"attempts: {s.attempts}/{s.max_attempts}    best reward: {s.best_reward:.2f}",
            "",
        ]
        for number, g in self._history:
            lines.append(f"Attempt {number}: reward {g.reward:.2f}  " + _summary(g))
            if g.traceback:
                lines += ["    " + ln for ln in g.traceback.splitlines()[-6:]]
            lines.append("")
        if not self._history:
            lines.append("The code box holds the task's template: fill in the TODO and Send.")
        return Text("\n".join(lines))

    # -- internals ------------------------------------------------------------------------

    def _grade(self, source: str) -> Graded:
        t = self._task
        nonce = "#kernrl-" + secrets.token_hex(8) + " "
        config = {
            "nonce": nonce,
            "seed": self._input_seed,
            "inputs": [[name, list(shape)] for name, shape in t.inputs],
            "reference": t.reference,
            "atol": t.atol,
            "rtol": t.rtol,
            "baseline": t.baseline,
            "source": source,
            "repeats": REPEATS,
            "tail_lines": TAIL_LINES,
        }
        sandbox = Sandbox(self._limits)
        try:
            result = sandbox.run(f"CONFIG = {config!r}\n{HARNESS}")
            why = sandbox.ended_because
        finally:
            sandbox.close()
        line = next((ln for ln in result.stdout.splitlines() if ln.startswith(nonce)), None)
        if line is None:
            tail = "\n".join(result.stderr.strip().splitlines()[-TAIL_LINES:])
            reason = why or (tail.splitlines() or ["no output"])[-1]
            reason = reason.split("; the sandbox was restarted")[0]  # each attempt's is fresh
            return Graded(error=f"the sandbox ended the attempt: {reason}"[:400], traceback=tail)
        try:
            report = json.loads(line[len(nonce) :])
        except ValueError:
            return Graded(error="the attempt's report was unreadable (its output was cut)")
        mode = GPU if report.get("mode") == "gpu" else INTERPRETER
        return Graded(
            correct=bool(report.get("correct")) and not report.get("error"),
            max_abs_error=_number(report.get("max_abs_err")),
            kernel_s=_number(report.get("kernel_s")),
            baseline_s=_number(report.get("baseline_s")),
            torch_s=_number(report.get("torch_s")),
            mode=mode,
            error=str(report.get("error", ""))[:400],
            traceback=re.sub(r"/tmp/openenv-code-[0-9a-f]+/", "", str(report.get("traceback", "")))[
                -2000:
            ],
        )

    def _observe(self, g: Graded, message: str = "", done: bool = False) -> KernrlObservation:
        t, s = self._task, self._state
        return KernrlObservation(
            task_id=t.task_id,
            task=f"{t.title}: {t.description}; inputs (float32) {t.shapes}",
            signature=t.signature,
            reference=t.reference,
            starter=t.starter,
            attempt=s.attempts,
            max_attempts=s.max_attempts,
            correct=g.correct,
            max_abs_error=g.max_abs_error,
            timing_mode=g.mode,
            kernel_ms=_ms(g.kernel_s),
            baseline_ms=_ms(g.baseline_s),
            torch_ms=_ms(g.torch_s),
            speedup=round(g.speedup, 2) if g.speedup else None,
            error=g.error,
            traceback=g.traceback,
            best_reward=s.best_reward,
            message=message,
            reward=0.0,
            done=done,
        )


def _summary(g: Graded) -> str:
    if g.error and g.max_abs_error is None:
        return f"ERROR: {g.error}"
    err = "inf" if g.max_abs_error is None else f"{g.max_abs_error:.3g}"
    if g.error:
        return f"WRONG: {g.error} (max abs error {err})"
    if not g.correct and g.max_abs_error is None:
        return (
            "WRONG: the output has NaN or inf (elements your kernel never stored read NaN; "
            f"baseline {_ms(g.baseline_s)} ms, {g.mode})"
        )
    if not g.correct:
        return f"WRONG: max abs error {err} (baseline {_ms(g.baseline_s)} ms, {g.mode})"
    return (
        f"CORRECT (max abs error {err}); {g.mode}: yours {_ms(g.kernel_s)} ms, baseline "
        f"{_ms(g.baseline_s)} ms, speed-up {g.speedup:.1f}x; PyTorch eager {_ms(g.torch_s)} ms"
    )


def _syntax_error(source: str) -> Graded | None:
    """A source that does not parse, caught before any sandbox starts (compiling runs nothing)."""
    try:
        compile(source, "kernel.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"kernel.py, line {exc.lineno}"
        text = (exc.text or "").rstrip()
        return Graded(error=f"SyntaxError: {exc.msg} ({where})", traceback=f"  {where}\n    {text}")
    except (RecursionError, MemoryError, ValueError) as exc:
        return Graded(error=f"the source could not be compiled: {type(exc).__name__}")
    return None


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if math.isfinite(value) else None
    return None


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000.0, 3)
