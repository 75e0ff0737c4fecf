"""What the Harbor trainer sessions share (:mod:`.sessions`, :mod:`.task_sessions`): the event
loop their clients run on, the session error, and :class:`HarborTaskDraw`, the factories'
common part (the server, the split and its tasks, which task a session gets)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from harbor_env.client import HarborEnv
from openenv.core.harness import ResourceSession, ResourceSessionFactory

T = TypeVar("T")
HTTP_WAIT_S = 180.0  # one Task API call or download, through the session's loop


class HarborSessionError(RuntimeError):
    """A session used out of order (a trace before the run ended, a closed session...)."""


class _Loop:
    """A private event loop on a daemon thread, shared by a factory's sessions: their clients
    run async there, so a session's ``close`` can cancel the call its rollout waits on."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="harbor-sessions", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        if not self.loop.is_running():
            coro.close()
            raise HarborSessionError("this factory is closed: its sessions' loop has stopped")
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout_s: float) -> T:
        return self.submit(coro).result(timeout=timeout_s)

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)


SessionT = TypeVar("SessionT", bound=ResourceSession)


class HarborTaskDraw(ResourceSessionFactory[SessionT]):
    """What the Harbor session factories share: the server, the split and its tasks (counted
    at once, so a wrong URL, split or index fails here), the task a session gets, the loop its
    clients run on."""

    def __init__(
        self,
        server_url: str,
        *,
        split: str = "",
        task_indices: Sequence[int] | None = None,
        api_token: str | None = None,
    ) -> None:
        self.server_url, self.api_token = server_url.rstrip("/"), api_token
        self.loop = _Loop()
        try:
            self.split, n_tasks = self.loop.run(self._count(split), HTTP_WAIT_S)
        except BaseException:
            self.loop.stop()
            raise
        self.tasks = list(range(n_tasks)) if task_indices is None else list(task_indices)
        bad = [i for i in self.tasks if isinstance(i, bool) or not 0 <= i < n_tasks]
        if bad or not self.tasks:
            self.loop.stop()
            raise ValueError(
                f"task_indices {bad or '[]'}: split {self.split!r} has {n_tasks} task(s)"
            )

    def index_for(self, task: Any, seed: int | None) -> int:
        """Task index ``task`` when it is an ``int``, else the task ``seed`` draws (the same
        for every session given that seed: a group shares its task)."""
        if isinstance(task, int) and not isinstance(task, bool):
            return task
        if seed is not None:
            return self.tasks[seed % len(self.tasks)]
        raise ValueError("give a seed (the rollouts of a group share it) or a task index")

    def close(self) -> None:
        """Stop the sessions' event loop (close the sessions first)."""
        self.loop.stop()

    async def _count(self, split: str) -> tuple[str, int]:
        client = HarborEnv(base_url=self.server_url, api_token=self.api_token)
        try:
            if not split:
                splits = await client.splits()
                if not splits:
                    raise ValueError(f"the Harbor server at {self.server_url} serves no splits")
                split = str(splits[0]["name"])
            return split, await client.num_tasks(split)
        finally:
            await client.close()
