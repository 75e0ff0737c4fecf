"""Harbor rollouts as trainer sessions: ``HarborSessionFactory(server_url, ...)``.

A :class:`~openenv.core.harness.ResourceSessionFactory` whose sessions are loop-owning
:class:`~openenv.core.harness.TrainableSession`\\ s: ``create(task, seed=, episode_id=)`` starts
one rollout on a Harbor server (``openenv harbor serve``; the ``run_rollout`` tool of
:class:`~harbor_env.HarborEnv`), the agent runs in its sandbox against the server's model
endpoint, and the session gives back what a trainer needs::

    factory = HarborSessionFactory("http://localhost:8000", harness="mini-swe-agent")
    session = factory.create(None, seed=3)       # task 3 % len(tasks) of the first split
    session.wait_for_completion()                # 0 once the run ended ok
    trace = session.fetch_training_trace()       # the engine's ids, logprobs and loss masks
    reward = session.verify([]).env_reward       # the task verifier's reward
    session.close()                              # cancels the run if it still runs

TRL's ``HarnessRolloutWorker`` (``trl.experimental.async_grpo``) takes
``functools.partial(HarborSessionFactory, server_url, ...)`` and calls it with ``sampling=``.

Which task: an ``int`` ``task`` is the task's index in the split; anything else (TRL passes the
dataset row's prompt) is not sent: the task is ``tasks[seed % len(tasks)]`` (``tasks`` is
``task_indices`` or the whole split), so the rollouts of a group, which share their seed, share
their task, and the agent's prompt is the task's own instruction.

The contract, as TRL reads it:

* ``wait_for_completion`` returns 0 once the run ended ok; raises :class:`HarborAgentTimedOut`
  (a ``TimeoutError``: TRL flags the rollout ``timed_out`` and still trains its captured turns
  with the verifier's reward) when the agent ran past its time; and :class:`HarborRolloutFailed`
  (a ``RuntimeError``: the trainer scores the rollout as unscorable) when it did not end ok
  otherwise: the agent failed, the verifier gave no reward, the run was cancelled. A server
  that refuses the run raises its :class:`~openenv.core.errors.ToolCallError`.
* ``fetch_training_trace`` raises :class:`HarborCaptureError` (a ``ValueError``; TRL stops on it
  with its ``CaptureContractError``) for an eval-only capture: the endpoint returned no token ids.
* ``verify(...).env_reward`` is the task verifier's reward, never made up here.

``sampling`` (TRL's: its temperature, nothing truncated; checked here by
:func:`~openenv.core.harness.capture.upstream.training_sampling`) is sent with each run: the
server's capture proxy pins it on every model call of the rollout over what the agent asks,
so the captured logprobs are the policy's the trainer recomputes; each turn records both
(``sampling_params``, ``requested_sampling_params``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Sequence
from typing import Any, cast

from harbor_env.client import HarborApiError, HarborEnv
from harbor_env.models import HarborRolloutResult, HarborTaskRef, TrainingTrace
from harbor_env.session_base import HTTP_WAIT_S, HarborSessionError, HarborTaskDraw
from openenv.core.harness import (
    Message,
    ResourceSession,
    ToolResult,
    TraceEntry,
    VerifyResult,
)
from openenv.core.harness.capture.upstream import training_sampling
from openenv.core.mcp import Tool

CLOSE_WAIT_S = 60.0  # closing a session: the run's cancel and the socket's close


class HarborRolloutFailed(HarborSessionError):
    """The run ended, but not ok; ``result`` says how (``status``, ``error``, ``reward``)."""

    def __init__(self, message: str, result: HarborRolloutResult) -> None:
        super().__init__(message)
        self.result = result


class HarborAgentTimedOut(TimeoutError):
    """The agent ran past its time; the run ended (its turns and the verifier's reward are
    there): ``result`` is it."""

    def __init__(self, message: str, result: HarborRolloutResult) -> None:
        super().__init__(message)
        self.result = result


class HarborCaptureError(ValueError):
    """The rollout has no trainable capture (an eval-only endpoint, or a turn the server could
    not validate); the message says why and how to serve the model."""


class HarborSession(ResourceSession):
    """One rollout on a Harbor server, running from the moment it is created."""

    def __init__(
        self,
        factory: HarborSessionFactory,
        task: HarborTaskRef,
        arguments: dict[str, Any],
        episode_id: str | None,
    ) -> None:
        self.task, self.episode_id = task, episode_id
        self.result: HarborRolloutResult | None = None
        self._loop = factory.loop
        self._client = HarborEnv(base_url=factory.server_url, api_token=factory.api_token)
        self._call: asyncio.Task[Any] | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._loop.run(self._connect(), HTTP_WAIT_S)  # an unreachable server fails create()
        self._rollout = self._loop.submit(self._run(arguments))

    async def _connect(self) -> None:
        await self._client.connect()

    async def _run(self, arguments: dict[str, Any]) -> HarborRolloutResult:
        if self._closed:  # closed before the call started: it never starts
            raise asyncio.CancelledError
        self._call = asyncio.current_task()
        return await self._client.run_rollout(**arguments)

    # -- the loop-owning contract -------------------------------------------------------------

    def wait_for_completion(self, timeout_s: float | None = None) -> int:
        """0 once the run ended ok; ``TimeoutError`` when ``timeout_s`` passes first (the run
        goes on); :class:`HarborAgentTimedOut` when the agent ran past its own time (the run
        ended: its trace and reward are there); :class:`HarborRolloutFailed` when it ended
        otherwise."""
        try:
            result = self._rollout.result(timeout=timeout_s)
        except concurrent.futures.CancelledError:
            raise HarborSessionError("the session was closed before its rollout ended") from None
        except TimeoutError:
            if self._rollout.done():
                raise  # the client's own call timeout, from the rollout
            running = f"{self.task.task_id}: still running after {timeout_s:g} s"
            raise TimeoutError(running) from None
        self.result = result
        if result.timed_out:
            raise HarborAgentTimedOut(
                f"run {result.run_id} ({self.task.task_id}): the agent ran past its time "
                f"({result.error}); reward {result.reward}",
                result,
            )
        if not result.ok:
            raise HarborRolloutFailed(
                f"run {result.run_id} ({self.task.task_id}) ended {result.status or 'failed'}: "
                f"{result.error}",
                result,
            )
        return 0

    def fetch_training_trace(self) -> TrainingTrace:
        """The run's validated trace, every turn's ``response`` in the reference's
        ``{"choices": [{"message", "finish_reason"}]}`` envelope; :class:`HarborCaptureError`
        for an eval-only capture."""
        result = self._finished()
        if result.rollout_type != "train":
            raise HarborCaptureError(
                f"run {result.run_id} ({self.task.task_id}) is eval only "
                f"(capture_level={result.capture_level}): its endpoint returned no token ids or "
                "processed logprobs. Serve the model with vLLM --return-tokens-as-token-ids "
                "--logprobs-mode processed_logprobs."
            )
        try:
            trace = self._loop.run(self._download(result.run_id), HTTP_WAIT_S)
        except HarborApiError as exc:
            if exc.server_code == "409":  # the server could not validate a turn
                raise HarborCaptureError(exc.message) from None
            raise
        return _reference_envelope(trace)

    def fetch_proxy_trace(self) -> list[TraceEntry]:
        """The training trace as turn records (``TraceEntry`` dicts)."""
        return cast(list[TraceEntry], self.fetch_training_trace().to_trace_entries())

    async def _download(self, run_id: str) -> TrainingTrace:
        return await self._client.fetch_training_trace(run_id)

    def verify(self, transcript: list[Message], final_state: Any | None = None) -> VerifyResult:
        """The verifier's reward (``None``: it gave none) with the run's numbers; the
        ``transcript`` is not used: the verifier judged the sandbox's files."""
        result = self._finished()
        return VerifyResult(
            env_reward=result.reward,
            done=True,
            metrics={"n_turns": result.n_turns, "wall_s": result.wall_s, "status": result.status},
            artifacts={
                "run_id": result.run_id,
                "task_id": result.task_id,
                "model": result.model,
                "verifier_output": result.verifier_output,
            },
        )

    def close(self) -> None:
        """Cancel the run if it still runs (its call is cancelled and the session's socket
        closed: the server cancels the run and closes its sandbox); closing twice is fine."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        with contextlib.suppress(HarborSessionError):  # the factory's loop stopped: nothing runs
            self._loop.run(self._shutdown(), CLOSE_WAIT_S)

    async def _shutdown(self) -> None:
        call = self._call
        if call is not None and not call.done():
            call.cancel()
            await asyncio.gather(call, return_exceptions=True)
        await self._client.close()  # the server hears the goodbye mid-call and cancels the run

    # -- the rest of ResourceSession: the agent owns its loop -------------------------------

    def initial_messages(self) -> list[Message]:
        """The task's instruction: what the agent is given."""
        return [{"role": "user", "content": self.task.instruction}]

    def list_tools(self) -> list[Tool]:
        """None: the agent calls its own tools inside the sandbox."""
        return []

    def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Refused: the agent calls its own tools inside the sandbox."""
        return ToolResult(
            error=f"a Harbor session has no tool {name!r}: its agent runs its own loop and tools"
        )

    def _finished(self) -> HarborRolloutResult:
        if self.result is not None:
            return self.result
        if not self._rollout.done():
            raise HarborSessionError(
                f"{self.task.task_id}: the rollout is still running: wait_for_completion() first"
            )
        if self._rollout.cancelled():
            raise HarborSessionError(f"{self.task.task_id}: the session was closed")
        problem = self._rollout.exception()
        if problem is not None:
            raise HarborSessionError(f"{self.task.task_id}: the rollout failed: {problem}")
        self.result = self._rollout.result()
        return self.result


class HarborSessionFactory(HarborTaskDraw[HarborSession]):
    """Sessions on the Harbor server at ``server_url``, each one rollout of one task.

    ``split`` (default: the server's first), ``harness``, ``sandbox``, ``llm_url``/``model``/
    ``api_key`` (default: the server's endpoint), ``agent_timeout_s`` (0: the task's) are
    ``run_rollout``'s arguments; ``task_indices`` narrows the tasks drawn from; ``api_token``
    is the server's bearer token. The split's tasks are counted here, so a wrong URL, split or
    index fails at once. ``close()`` closes the sessions' event loop.
    """

    def __init__(
        self,
        server_url: str,
        *,
        split: str = "",
        harness: str = "mini-swe-agent",
        sandbox: str = "process",
        llm_url: str = "",
        model: str = "",
        api_key: str = "",
        agent_timeout_s: float = 0.0,
        task_indices: Sequence[int] | None = None,
        sampling: dict[str, Any] | None = None,
        api_token: str | None = None,
    ) -> None:
        self.sampling = training_sampling(sampling)
        self._refs: dict[int, HarborTaskRef] = {}
        self._refs_lock = threading.Lock()
        super().__init__(server_url, split=split, task_indices=task_indices, api_token=api_token)
        self.arguments: dict[str, Any] = {
            "split": self.split,
            "harness": harness,
            "sandbox": sandbox,
            "llm_url": llm_url,
            "model": model,
            "api_key": api_key,
            "agent_timeout_sec": agent_timeout_s,
        }
        if self.sampling:
            self.arguments["sampling"] = dict(self.sampling)

    def create(
        self, task: Any = None, seed: int | None = None, episode_id: str | None = None
    ) -> HarborSession:
        """Start one rollout: of task index ``task`` when it is an ``int``, else of the task
        ``seed`` draws (the same for every rollout given that seed)."""
        index = self.index_for(task, seed)
        ref = self._ref(index)
        return HarborSession(self, ref, {**self.arguments, "task_index": index}, episode_id)

    def _ref(self, index: int) -> HarborTaskRef:
        with self._refs_lock:
            ref = self._refs.get(index)
        if ref is None:
            ref = self.loop.run(self._get_task(index), HTTP_WAIT_S)
            with self._refs_lock:
                self._refs[index] = ref
        return ref

    async def _get_task(self, index: int) -> HarborTaskRef:
        client = HarborEnv(base_url=self.server_url, api_token=self.api_token)
        try:
            return await client.get_task(self.split, index)
        finally:
            await client.close()


def _reference_envelope(trace: TrainingTrace) -> TrainingTrace:
    """Each turn's ``response`` as ``openenv`` 0.10 writes it (our capture keeps the bare
    assistant message): TRL reads the reply's text and tool calls from ``choices[0].message``."""
    turns = []
    for turn in trace.turns:
        response = turn.response
        if "choices" not in response:
            finish = turn.metadata.get("finish_reason")
            response = {"choices": [{"message": response, "finish_reason": finish}]}
        turns.append(turn.model_copy(update={"response": response}))
    return trace.model_copy(update={"turns": turns})
