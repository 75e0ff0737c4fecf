"""Coding: run Python code, one cell per step, in a sandbox of its own for each episode.

Action: ``CodeAction(code)``. Observation: ``stdout``, ``stderr`` and ``exit_code`` (0 on
success, 1 on an exception, the code of ``SystemExit``, 124 when the wall-clock limit is hit,
128 + N when the interpreter is killed by signal N, e.g. 152 for the CPU limit).
State: ``episode_id``, ``step_count``, ``last_exit_code`` and ``network_access``.

Variables persist between the steps of an episode; ``reset`` starts a fresh interpreter in a
fresh working directory. The code runs in a separate process with time, CPU, memory, file size
and process limits, a private working directory, a clean environment, namespaces of its own
(private ``/tmp`` and ``/dev/shm``, the host's files read-only, no process of the host in
sight) and no network (see ``coding_env/server/sandbox.py``; ``CODING_NETWORK=on`` allows the
network, and ``state.network_access`` says which is in force). A run that hits a limit ends
with an error in ``stderr`` (``sandbox: ...``); when the interpreter had to be killed the next
step starts a new one. When the machine cannot make those namespaces (or cut the code off the
network, and ``CODING_NETWORK`` is not ``on``), ``step`` runs nothing and raises
``SandboxUnavailable`` saying how to allow it; only ``CODING_ALLOW_UNISOLATED=on`` lets code run
without the namespaces there.

Reward: 1.0 when the code ran without error (exit code 0), else 0.0. Episodes never end by
themselves.
"""

from __future__ import annotations

import asyncio
import sys
import uuid

from coding_env.models import CodeAction, CodeObservation, CodeState
from openenv.core import Environment, Text, View
from openenv.sandbox.sandbox import Sandbox, SandboxLimits

READY = (
    f">>> Python {sys.version_info.major}.{sys.version_info.minor}, a fresh interpreter\n"
    "Each step runs one cell of code; variables persist until reset.\n"
    "Playground: the Code tab. Client: env.step(CodeAction(code='print(1 + 1)'))"
)


class CodingEnvironment(Environment[CodeAction, CodeObservation, CodeState]):
    how_to_play = (
        "Write Python in the box and press Send (Ctrl+Enter): it runs in a sandbox that "
        "keeps your variables for the whole episode."
    )

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self._limits = limits or SandboxLimits.for_package("coding_env")
        self._sandbox: Sandbox | None = None
        self._state = CodeState(network_access=self._limits.network)
        self._last = CodeObservation()

    def reset(self, seed: int | None = None, episode_id: str | None = None) -> CodeObservation:
        self._close_sandbox()
        self._state = CodeState(
            episode_id=episode_id or str(uuid.uuid4()), network_access=self._limits.network
        )
        self._last = CodeObservation(reward=0.0)
        return self._last

    def step(self, action: CodeAction) -> CodeObservation:
        if self._sandbox is None:
            self._sandbox = Sandbox(self._limits)
        result = self._sandbox.run(action.code)
        self._state.step_count += 1
        self._state.last_exit_code = result.exit_code
        self._last = CodeObservation(
            stdout=result.stdout,
            stderr=result.stderr,
            exit_code=result.exit_code,
            reward=1.0 if result.exit_code == 0 else 0.0,
        )
        return self._last

    async def step_async(self, action: CodeAction) -> CodeObservation:
        # A cell may run for seconds: always in a worker thread, never inline on the server's loop.
        return await asyncio.to_thread(self.step, action)

    @property
    def state(self) -> CodeState:
        return self._state

    def render(self) -> View | None:
        if self._state.step_count == 0:
            return Text(READY)
        obs = self._last
        parts = [obs.stdout, obs.stderr, f"exit code {obs.exit_code}"]
        return Text("\n".join(p.rstrip("\n") for p in parts if p))

    def close(self) -> None:
        self._close_sandbox()

    def _close_sandbox(self) -> None:
        sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None:
            sandbox.close()
