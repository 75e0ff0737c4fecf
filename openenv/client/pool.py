"""EnvPool: drive N environment sessions together for batched rollouts.

Each member is one client (one session), on one server or spread over several::

    async with EnvPool.launch("grid_world", size=8, servers=2) as pool:
        results = await pool.reset(seed=0)            # env i gets seed 0 + i
        results = await pool.step([action] * 8)       # all 8 concurrently, results in order
        for r in results:
            if r.error: ...                           # this env failed; the others did not

A failing member never takes the others down: its :class:`PoolResult` carries the exception in
``.error`` and the next call goes to it again as usual. ``None`` in ``step(actions)`` skips that
member. ``EnvPool.sync()`` gives the same API without ``await``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from openenv.client.modes import _LoopThread
from openenv.core.errors import OpenEnvError, PoolClosed
from openenv.core.types import StepResult

# What a member call may raise without being a bug of the pool: the server refused or failed
# (ClientError), the transport broke (OSError), or the action could not be encoded.
MEMBER_ERRORS = (OpenEnvError, OSError, TypeError, ValueError, TimeoutError)

_T = TypeVar("_T")


@dataclass
class PoolResult:
    """The outcome of one member's call: ``result`` or ``error`` (``skipped`` if not called)."""

    index: int
    result: StepResult[Any] | None = None
    error: BaseException | None = None
    skipped: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and not self.skipped

    @property
    def observation(self) -> Any:
        return self.result.observation if self.result is not None else None

    @property
    def reward(self) -> float | None:
        return self.result.reward if self.result is not None else None

    @property
    def done(self) -> bool:
        return bool(self.result is not None and self.result.done)


class EnvPool:
    """N async clients (each one session) called concurrently; see the module docstring."""

    def __init__(self, clients: Sequence[Any], providers: Sequence[Any] = ()) -> None:
        if not clients:
            raise ValueError("an EnvPool needs at least one client")
        self.clients = list(clients)
        self._providers = list(providers)

    def __len__(self) -> int:
        return len(self.clients)

    @classmethod
    def connect(
        cls, client_cls: Any, base_urls: str | Sequence[str], size: int, **kw: Any
    ) -> EnvPool:
        """``size`` clients of ``client_cls`` spread round-robin over running servers."""
        urls = [base_urls] if isinstance(base_urls, str) else list(base_urls)
        return cls([client_cls(base_url=urls[i % len(urls)], **kw) for i in range(size)])

    @classmethod
    def launch(
        cls,
        name: str,
        size: int,
        servers: int = 1,
        *,
        use_docker: bool = False,
        docker_image: str | None = None,
        env_vars: Mapping[str, str] | None = None,
    ) -> EnvPool:
        """Start ``servers`` servers of env ``name`` (local processes, or containers of
        ``docker_image`` when ``use_docker``) and spread ``size`` sessions over them round-robin.
        The pool stops its servers on close."""
        from openenv.launch.servers import launch_pool  # the launch layer, at call time

        return launch_pool(
            cls, name, size, servers, use_docker=use_docker, docker_image=docker_image,
            env_vars=env_vars,
        )  # fmt: skip

    async def _gather(self, calls: Iterable[Coroutine[Any, Any, Any] | None]) -> list[PoolResult]:
        async def run(index: int, call: Coroutine[Any, Any, Any] | None) -> PoolResult:
            if call is None:
                return PoolResult(index, skipped=True)
            try:
                return PoolResult(index, result=await call)
            except MEMBER_ERRORS as exc:  # reported on this member's result, never hidden
                return PoolResult(index, error=exc)

        return list(await asyncio.gather(*(run(i, c) for i, c in enumerate(calls))))

    async def reset(
        self, seed: int | None = None, indices: Iterable[int] | None = None, **kwargs: Any
    ) -> list[PoolResult]:
        """Reset every member (or only ``indices``); member ``i`` gets ``seed + i``."""
        wanted = set(range(len(self))) if indices is None else set(indices)

        def call(i: int, client: Any) -> Coroutine[Any, Any, Any] | None:
            if i not in wanted:
                return None
            return client.reset(**kwargs, **({} if seed is None else {"seed": seed + i}))

        return await self._gather(call(i, c) for i, c in enumerate(self.clients))

    async def step(self, actions: Sequence[Any]) -> list[PoolResult]:
        """Step member ``i`` with ``actions[i]`` (``None``: skip it), all at once, in order."""
        if len(actions) != len(self):
            raise ValueError(
                f"step() needs one action per member: got {len(actions)} for {len(self)}; "
                "pass None for members that should not move"
            )
        return await self._gather(
            None if a is None else c.step(a) for c, a in zip(self.clients, actions, strict=True)
        )

    async def close(self) -> None:
        """Close every session, then stop the servers the pool started. Safe to call twice."""
        await asyncio.gather(*(c.close() for c in self.clients), return_exceptions=True)
        providers, self._providers = self._providers, []
        for provider in providers:
            await asyncio.to_thread(provider.stop)

    async def __aenter__(self) -> EnvPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def sync(self) -> SyncEnvPool:
        """A blocking twin of this pool, usable as a context manager."""
        return SyncEnvPool(self)


class SyncEnvPool:
    """:class:`EnvPool` without ``await`` (runs it on a private event loop thread)."""

    def __init__(self, pool: EnvPool) -> None:
        self.pool = pool
        self._loop: _LoopThread | None = _LoopThread()

    def __len__(self) -> int:
        return len(self.pool)

    def _run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        if self._loop is None:
            coro.close()
            raise PoolClosed("this pool is closed: make a new one with EnvPool.launch/connect")
        return self._loop.run(coro)

    def reset(
        self, seed: int | None = None, indices: Iterable[int] | None = None, **kw: Any
    ) -> list[PoolResult]:
        """Reset every member (or only ``indices``); member ``i`` gets ``seed + i``."""
        return self._run(self.pool.reset(seed, indices, **kw))

    def step(self, actions: Sequence[Any]) -> list[PoolResult]:
        """Step member ``i`` with ``actions[i]`` (``None``: skip it), all at once, in order."""
        return self._run(self.pool.step(actions))

    def close(self) -> None:
        if self._loop is None:
            return
        try:
            self._run(self.pool.close())
        finally:
            self._loop.stop()
            self._loop = None

    def __enter__(self) -> SyncEnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
