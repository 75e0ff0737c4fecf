"""One Harbor rollout: a task, a harness in a sandbox against the capture proxy, the verifier.

``run_rollout(task, proxy, proxy_url, harness, model=...)`` mints a capture session (its id is
the harness's API key), seeds a sandbox with the task, runs the harness there against
``proxy_url`` until it ends or its timeout, runs the task's verifier in the same sandbox, reads
the reward, closes the session and returns a :class:`RolloutResult`: the reward, the captured
calls and, for a ``[TRAIN]`` capture, the :class:`~openenv.core.harness.TrainingTrace`, the
timings and the tail of the harness's log.

While the harness runs, ``engine_check`` (when given) is asked every second whether the model
engine is still up; an engine that is down three times running stops the harness and fails the
rollout with that reason, rather than leaving an agent retrying until its timeout. Setting
``cancel`` (an event) stops the harness the same way (status ``cancelled``); ``on_session`` is
told the capture session's id at once, so a watcher can read the calls as they are made.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from openenv.core.harness.capture import CaptureProxy, CaptureResult, EvalCaptureError
from openenv.core.harness.docker_sandbox import DockerTaskSandbox
from openenv.core.harness.harnesses import Harness, HarnessUnavailable
from openenv.core.harness.sandboxes import ProcessTaskSandbox, SandboxError
from openenv.core.harness.tasks import HarborTask, TaskError
from openenv.core.harness.training import TrainingTrace

SANDBOXES = ("process", "docker")
TaskSandbox = ProcessTaskSandbox | DockerTaskSandbox
Status = Literal[
    "ok", "timeout", "cancelled", "harness_error", "engine_error", "verifier_error", "error"
]
ENGINE_POLL_S = 1.0
ENGINE_STRIKES = 3
CANCEL_POLL_S = 0.1


class RolloutResult(BaseModel):
    """What one rollout gives back."""

    task: str
    harness: str
    sandbox: str
    status: Status
    reason: str = ""
    reward: float | None = None
    harness_exit_code: int | None = None
    timings: dict[str, float] = Field(default_factory=dict)
    log_tail: str = ""
    verifier_output: str = ""
    capture: CaptureResult | None = None
    trace: TrainingTrace | None = None

    @property
    def n_turns(self) -> int:
        """Model calls captured."""
        return len(self.capture.nodes) if self.capture else 0

    @property
    def n_tokens(self) -> int:
        """Completion tokens in the training trace (0 for an eval capture)."""
        return sum(len(t.completion_token_ids) for t in self.trace.turns) if self.trace else 0

    def summary_line(self) -> str:
        """One line: status, reward, turns, roots, tokens and the time taken."""
        reward = "none" if self.reward is None else f"{self.reward:.2f}"
        roots = self.capture.n_roots if self.capture else 0
        level = self.capture.rollout_type if self.capture else "none"
        total = self.timings.get("total_s", 0.0)
        return (
            f"{self.status:<6} reward={reward}  turns={self.n_turns}  roots={roots}  "
            f"tokens={self.n_tokens}  capture={level}  {total:.0f}s"
        )


class _Watch:
    """While the harness runs: polls ``check`` (is the engine up?) every second and waits on
    ``cancel``; on a dead engine or a cancel, stops the sandbox (the harness's run returns)."""

    def __init__(
        self,
        check: Callable[[], str | None] | None,
        cancel: threading.Event | None,
        sandbox: TaskSandbox,
    ) -> None:
        self.check, self.cancel, self.sandbox = check, cancel or threading.Event(), sandbox
        self.reason = ""
        self.cancelled = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rollout-watch", daemon=True)

    def __enter__(self) -> _Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        strikes = 0
        next_check = time.monotonic() + ENGINE_POLL_S
        while not self._stop.wait(CANCEL_POLL_S):
            if self.cancel.is_set():
                self.cancelled = True
                self.reason = "the run was cancelled"
                self.sandbox.close()
                return
            if self.check is None or time.monotonic() < next_check:
                continue
            next_check = time.monotonic() + ENGINE_POLL_S
            problem = self.check()
            strikes = strikes + 1 if problem else 0
            if strikes >= ENGINE_STRIKES:
                self.reason = f"the model engine is down: {problem}"
                self.sandbox.close()  # the harness's run returns at once
                return


def run_rollout(
    task: HarborTask,
    *,
    proxy: CaptureProxy,
    proxy_url: str,
    harness: Harness,
    model: str,
    sandbox: str = "process",
    agent_timeout_s: float | None = None,
    engine_check: Callable[[], str | None] | None = None,
    cancel: threading.Event | None = None,
    on_session: Callable[[str], None] | None = None,
    sampling: dict[str, Any] | None = None,
    max_calls: int | None = None,
    eval_sampling: dict[str, Any] | None = None,
) -> RolloutResult:
    """Run ``harness`` on ``task`` against the proxy at ``proxy_url`` (its ``/v1`` base) and
    verify; every failure is a result with a status and a reason, not an exception (bad
    arguments, like an unknown sandbox, a harness not installed or a ``sampling`` that is not
    a training policy, raise). ``sampling`` (``{"temperature": 0.8}``: the trainer's) is pinned
    on every model call of the rollout over what the agent asks; both are recorded.
    ``eval_sampling`` (an eval run's temperature, top-p, top-k) is pinned the same way and
    makes the capture eval only.
    ``max_calls``: the agent's model calls are capped at the proxy (a call past it is refused,
    counted as ``capture.budget_stop_count``)."""
    if sandbox not in SANDBOXES:
        raise ValueError(f"unknown sandbox {sandbox!r}: rollouts run in {', '.join(SANDBOXES)}")
    problem = harness.problem()
    if problem:
        raise HarnessUnavailable(problem)
    timeout = agent_timeout_s or task.agent_timeout_s
    started = time.monotonic()
    timings: dict[str, float] = {}
    session_id = proxy.open_session(
        f"{harness.name}/{task.name}", sampling, eval_sampling=eval_sampling, max_calls=max_calls
    )
    if on_session is not None:
        on_session(session_id)  # a watcher reads the capture as it grows
    base = {"task": task.name, "harness": harness.name, "sandbox": sandbox}
    result: dict[str, Any] = {"status": "error"}
    box: TaskSandbox | None = None
    try:
        if sandbox == "docker":
            harness = harness.in_container()
            box = DockerTaskSandbox(task, harness)
        else:
            box = ProcessTaskSandbox(
                harness_timeout_s=timeout,
                verifier_timeout_s=task.verifier_timeout_s,
                proxy_url=proxy_url,
            )
        command = harness.command(task.instruction, f"{proxy_url}/v1", session_id, model)
        t0 = time.monotonic()
        box.seed(task.files("environment/app"))
        timings["setup_s"] = time.monotonic() - t0
        t0 = time.monotonic()
        watch = _Watch(engine_check, cancel, box)
        try:
            with watch:
                ran = box.run_harness(command.argv, command.env, timeout)
        except SandboxError as exc:
            status = "cancelled" if watch.cancelled else "engine_error"
            result.update(status=status if watch.reason else "harness_error")
            result.update(reason=watch.reason or str(exc))
            return _finish(base, result, proxy, session_id, timings, started)
        finally:
            timings["harness_s"] = time.monotonic() - t0
        result.update(harness_exit_code=ran.exit_code, log_tail=ran.log_tail)
        if watch.cancelled:
            result.update(status="cancelled", reason=watch.reason)
            return _finish(base, result, proxy, session_id, timings, started)
        down = watch.reason
        if engine_check and not down and (problem := engine_check()):
            down = f"the model engine is down: {problem}"  # the harness gave up first
        if down:
            result.update(status="engine_error", reason=down)
            return _finish(base, result, proxy, session_id, timings, started)
        t0 = time.monotonic()
        verdict = box.verify(task.files("tests"), task.verifier_env, task.verifier_timeout_s)
        timings["verifier_s"] = time.monotonic() - t0
        result.update(reward=verdict.reward, verifier_output=verdict.output)
        if ran.timed_out:
            result.update(status="timeout", reason=f"the harness ran past its {timeout:g} s")
        elif verdict.reward is None:
            result.update(status="verifier_error", reason=verdict.problem)
        else:
            result.update(status="ok")
    except (SandboxError, HarnessUnavailable, TaskError, OSError) as exc:
        result.update(status="error", reason=str(exc))
    except BaseException:
        proxy.sessions.close(session_id)  # its key dies with the rollout, whatever ended it
        raise
    finally:
        if box is not None:
            box.close()
    return _finish(base, result, proxy, session_id, timings, started)


def _finish(
    base: dict[str, Any],
    result: dict[str, Any],
    proxy: CaptureProxy,
    session_id: str,
    timings: dict[str, float],
    started: float,
) -> RolloutResult:
    capture = proxy.close_session(session_id)
    trace = None
    try:
        trace = capture.to_training_trace()
    except EvalCaptureError:
        pass  # an eval capture: the result says so (capture.rollout_type)
    timings["total_s"] = time.monotonic() - started
    return RolloutResult(**base, **result, timings=timings, capture=capture, trace=trace)
