"""Harbor tasks as white-box trainer sessions: ``HarborTaskSessionFactory(server_url, ...)``.

Where :class:`~harbor_env.sessions.HarborSessionFactory` starts a coding agent that owns its
loop, these sessions leave the loop to the trainer: ``create`` opens a task's sandbox on the
Harbor server (its ``open_task`` tool, one per session), the session's one tool is ``bash``
(a command in that sandbox, files kept between commands), and ``verify`` runs the task's
verifier there and gives its reward. TRL's ``HarnessRolloutWorker`` drives them with a
white-box harness, sampling every turn itself::

    from openenv.core.harness import MCPHarnessAdapter

    worker = HarnessRolloutWorker(
        harness_session_factory=functools.partial(HarborTaskSessionFactory, server_url),
        harness_adapter=MCPHarnessAdapter(), ...)

Which task: as :class:`~harbor_env.sessions.HarborSessionFactory` chooses (an ``int`` task is
the index, else ``tasks[seed % len(tasks)]``), so a group shares its task.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from harbor_env.client import HarborEnv
from harbor_env.session_base import HTTP_WAIT_S, HarborSessionError, HarborTaskDraw
from openenv.core.errors import ToolCallError
from openenv.core.harness import Message, ResourceSession, ToolResult, VerifyResult
from openenv.core.mcp import Tool

SESSION_TOOLS = ("bash",)  # what the model may call; opening and verifying are the session's
VERIFY_WAIT_S = 1800.0  # the verifier's own timeout bounds it on the server


class HarborTaskSession(ResourceSession):
    """One task's sandbox on a Harbor server, driven command by command."""

    def __init__(self, factory: HarborTaskSessionFactory, index: int) -> None:
        self._loop = factory.loop
        self._client = HarborEnv(base_url=factory.server_url, api_token=factory.api_token)
        self._lock = threading.Lock()
        self._closed = False
        self.verified: dict[str, Any] | None = None
        try:
            self._loop.run(self._awaited(self._client.connect), HTTP_WAIT_S)
            self.task = self._call("open_task", split=factory.split, task_index=index,
                                   sandbox=factory.sandbox)  # fmt: skip
            listed = self._loop.run(self._awaited(self._client.list_tools), HTTP_WAIT_S)
        except BaseException:
            self.close()
            raise
        self.tools: list[Tool] = [t for t in listed if t.name in SESSION_TOOLS]

    def _call(self, name: str, timeout_s: float = HTTP_WAIT_S, **arguments: Any) -> Any:
        if self._closed:
            raise HarborSessionError("this session is closed")
        call = functools.partial(self._client.call_tool, name, **arguments)
        return self._loop.run(self._awaited(call), timeout_s)

    @staticmethod
    async def _awaited(call: Callable[[], Any]) -> Any:
        """``call()``'s value, awaited (the client's methods return awaitables)."""
        return await call()

    def initial_messages(self) -> list[Message]:
        """The task's instruction, and how to act on it."""
        return [{"role": "user", "content": self.task["instruction"]}]

    def list_tools(self) -> list[Tool]:
        """``bash``: one command in the task's sandbox."""
        return list(self.tools)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one of :meth:`list_tools` in the sandbox; a refused call is the result's error
        (the model sees it), not an exception."""
        if name not in SESSION_TOOLS:
            return ToolResult(error=f"no tool {name!r}: the tools are {', '.join(SESSION_TOOLS)}")
        try:
            data = self._call(name, timeout_s=HTTP_WAIT_S + 600.0, **arguments)
        except ToolCallError as exc:
            return ToolResult(error=str(exc))
        return ToolResult(data=data, metadata={"exit_code": data.get("exit_code")})

    def verify(self, transcript: list[Message], final_state: Any | None = None) -> VerifyResult:
        """The task verifier's reward on the sandbox as the commands left it (``None``: it gave
        none); verifying closes the sandbox, so a second call gives the first answer."""
        if self.verified is None:
            self.verified = self._call("verify_task", timeout_s=VERIFY_WAIT_S)
        found = self.verified
        return VerifyResult(
            env_reward=found.get("reward"),
            done=True,
            metrics={"commands": found.get("commands"), "problem": found.get("problem")},
            artifacts={"task_id": self.task.get("task_id"), "verifier_output": found.get("output")},
        )

    def close(self) -> None:
        """Close the connection: the server closes the task's sandbox (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._loop.run(self._awaited(self._client.close), HTTP_WAIT_S)
        except HarborSessionError:
            pass  # the factory's loop stopped: nothing is left open on this side


class HarborTaskSessionFactory(HarborTaskDraw[HarborTaskSession]):
    """White-box sessions on the Harbor server at ``server_url``, one task's sandbox each.

    ``split`` (default: the server's first), ``sandbox`` (``process`` or ``docker``),
    ``task_indices`` (the tasks drawn from), ``api_token`` (the server's bearer token).
    ``close()`` closes the sessions' event loop."""

    def __init__(
        self,
        server_url: str,
        *,
        split: str = "",
        sandbox: str = "process",
        task_indices: Sequence[int] | None = None,
        api_token: str | None = None,
    ) -> None:
        self.sandbox = sandbox
        super().__init__(server_url, split=split, task_indices=task_indices, api_token=api_token)

    def create(
        self, task: Any = None, seed: int | None = None, episode_id: str | None = None
    ) -> HarborTaskSession:
        """Open one task's sandbox: task index ``task`` when it is an ``int``, else the task
        ``seed`` draws (the same for every session given that seed)."""
        return HarborTaskSession(self, self.index_for(task, seed))
