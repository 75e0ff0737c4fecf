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

A server the pool started that died (its process, its Ray actor, its node) fails its members'
calls with a clear error, never a hang (the client's liveness timeout bounds the wait); the next
``reset`` starts a replacement server and reconnects those members to it, the others untouched.

A pool pickles as its members' addresses: a copy sent to another process (a Ray task or actor,
``multiprocessing``) connects its own sessions to the same servers, and the original keeps
owning them (only it stops them).
"""

from __future__ import annotations

import asyncio
import contextlib
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

    def __init__(
        self,
        clients: Sequence[Any],
        providers: Sequence[Any] = (),
        *,
        slots: Sequence[int] | None = None,
        client_cls: Any = None,
    ) -> None:
        """``clients``: one per member; ``providers``: the servers the pool owns (stopped on
        close); ``slots[i]``: the provider member ``i`` is on (replaced when it dies);
        ``client_cls``: what makes a member's client anew."""
        if not clients:
            raise ValueError("an EnvPool needs at least one client")
        self.clients = list(clients)
        self._providers = list(providers)
        self._slots = list(slots) if slots is not None else None
        self._client_cls = client_cls or type(self.clients[0])
        self._suspects: set[int] = set()  # providers whose members failed since the last check

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
        servers: int | str = 1,
        *,
        use_docker: bool = False,
        docker_image: str | None = None,
        env_vars: Mapping[str, str] | None = None,
        provider: Any = None,
    ) -> EnvPool:
        """Start ``servers`` servers of env ``name`` and spread ``size`` sessions over them
        round-robin: local processes (the default), containers of ``docker_image`` when
        ``use_docker``, or Ray actors on a cluster with ``provider="ray"`` or
        ``provider=Ray(address=..., num_cpus=..., resources=..., strategy=...)``
        (:mod:`openenv.runtime.ray_provider`). ``servers="auto"``: one server per 64 sessions.
        The pool stops its servers on close."""
        from openenv.launch.servers import launch_pool  # the launch layer, at call time

        return launch_pool(
            cls, name, size, servers, use_docker=use_docker, docker_image=docker_image,
            env_vars=env_vars, provider=provider,
        )  # fmt: skip

    @property
    def urls(self) -> list[str]:
        """Each member's server address, in order."""
        return [str(client.base_url) for client in self.clients]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A copy elsewhere connects its own sessions to the same servers and owns none.
        return (_reconnected, (self._client_cls, self.urls))

    async def _gather(self, calls: Iterable[Coroutine[Any, Any, Any] | None]) -> list[PoolResult]:
        async def run(index: int, call: Coroutine[Any, Any, Any] | None) -> PoolResult:
            if call is None:
                return PoolResult(index, skipped=True)
            try:
                return PoolResult(index, result=await call)
            except MEMBER_ERRORS as exc:  # reported on this member's result, never hidden
                if self._slots is not None:
                    self._suspects.add(self._slots[index])
                return PoolResult(index, error=exc)

        return list(await asyncio.gather(*(run(i, c) for i, c in enumerate(calls))))

    async def _replace_dead_servers(self) -> None:
        """Start a replacement for each server whose members failed and that is gone, and
        reconnect its members there (the others are not touched)."""
        suspects, self._suspects = self._suspects, set()
        for index in sorted(suspects):
            dead = self._providers[index]
            if await asyncio.to_thread(dead.is_alive):
                continue  # the members failed for their own reasons
            await asyncio.to_thread(dead.stop)
            replacement, url = await _replacement(dead)
            self._providers[index] = replacement
            assert self._slots is not None
            for member, slot in enumerate(self._slots):
                if slot == index:
                    with contextlib.suppress(*MEMBER_ERRORS):
                        await self.clients[member].close()
                    self.clients[member] = self._client_cls(base_url=url)

    async def reset(
        self, seed: int | None = None, indices: Iterable[int] | None = None, **kwargs: Any
    ) -> list[PoolResult]:
        """Reset every member (or only ``indices``); member ``i`` gets ``seed + i``. A server
        that died since the last call is replaced first (see the module docstring)."""
        if self._suspects:
            await self._replace_dead_servers()
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


REPLACEMENT_TRIES = 3  # a cluster may place the first try on a node it has not yet seen die


async def _replacement(dead: Any) -> tuple[Any, str]:
    """A started, healthy replacement of the provider ``dead``, and its URL."""
    for attempt in range(REPLACEMENT_TRIES):
        replacement = dead.respawn()
        try:
            url = await asyncio.to_thread(replacement.start)
            await asyncio.to_thread(replacement.wait_until_healthy)
            return replacement, url
        except OpenEnvError:
            await asyncio.to_thread(replacement.stop)
            if attempt == REPLACEMENT_TRIES - 1:
                raise
    raise AssertionError("unreachable")


def _reconnected(client_cls: Any, urls: list[str]) -> EnvPool:
    """A pool of new sessions on the servers at ``urls`` (what an unpickled pool is)."""
    return EnvPool([client_cls(base_url=url) for url in urls])


def _reconnected_sync(client_cls: Any, urls: list[str]) -> SyncEnvPool:
    return SyncEnvPool(_reconnected(client_cls, urls))


class SyncEnvPool:
    """:class:`EnvPool` without ``await`` (runs it on a private event loop thread)."""

    def __init__(self, pool: EnvPool) -> None:
        self.pool = pool
        self._loop: _LoopThread | None = _LoopThread()

    def __len__(self) -> int:
        return len(self.pool)

    @property
    def urls(self) -> list[str]:
        return self.pool.urls

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # As EnvPool's: a copy elsewhere is a blocking pool of its own sessions.
        return (_reconnected_sync, (self.pool._client_cls, self.pool.urls))

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
