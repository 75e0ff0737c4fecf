"""Sync or async, as the caller is: one client whose methods answer plain code and ``await`` alike.

Called from plain code (no event loop running in the thread), ``env.reset()`` returns the
result; under a running loop it returns an awaitable. That is how ``openenv`` 0.10's client
behaves, and what TRL's examples and most notebooks expect::

    env = GridWorldEnv(base_url=url)          # plain code: results
    result = env.reset(seed=0)
    env.close()

    async with GridWorldEnv(base_url=url) as env:    # async code: awaitables
        result = await env.reset(seed=0)

The rules, in the order :meth:`Modes.dispatch` applies them:

1. A call made while another call of the same client is running in this thread (a subclass's
   ``step_move`` calling ``self.step``) is part of it: it returns the coroutine to ``await``.
2. A client keeps the mode of its first call. Plain code on a client that was awaited raises
   :class:`~openenv.core.errors.MixedModes`; a sync client stays sync even where a loop runs
   (a Jupyter cell runs inside one: ``env.reset()`` there blocks and returns the result).
3. The first call decides: no running loop → sync. Under a running loop the call returns a
   :class:`Pending`: ``await`` it (the client turns async) or use it as the result (read an
   attribute, print it, iterate it: the call runs then, and the client turns sync). A Pending
   that is neither awaited nor used never ran, and says so when it is collected, as a coroutine
   that is never awaited does.

Sync calls do their I/O in the caller's thread on a blocking connection
(:mod:`openenv.client.blocking`), so they cost what ``.sync()`` always did. Through an HTTP
proxy, and for coroutine methods a subclass adds (they may await anything), the call runs on a
private event-loop thread instead. Calls from several threads take turns.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import warnings
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from openenv.client.blocking import run_now
from openenv.core.errors import MixedModes

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])
Mode = Literal["sync", "async"]


class _LoopThread:
    """A private event loop on a daemon thread; coroutines are submitted to it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, daemon=True, name="openenv-sync"
        )
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=5)
        self.loop.close()


class Modes:
    """Which mode a client is in, and how its calls run in each (one per client).

    ``direct`` says whether sync calls may do their I/O in the caller's thread (not through a
    proxy); :meth:`claim` tells the client, which opens its connection accordingly.
    """

    def __init__(self, direct: bool, on_sync: Callable[[bool], None]) -> None:
        self.mode: Mode | None = None
        self._direct = direct
        self._on_sync = on_sync  # told once, when the client turns sync: blocking I/O or not
        self._local = threading.local()  # .depth: a sync call of this client runs here
        self._turn = threading.Lock()
        self._loop: _LoopThread | None = None

    def claim(self, mode: Mode) -> None:
        """Fix the client's mode on first use; a call in the other mode is an error."""
        if self.mode == mode:
            return
        if self.mode is not None:
            raise MixedModes(_MIXED[self.mode])
        self.mode = mode
        if mode == "sync":
            self._on_sync(self._direct)

    def dispatch(
        self, method: Callable[..., Coroutine[Any, Any, Any]], direct: bool, args: tuple[Any, ...]
    ) -> Any:
        """Run ``method(*args)`` the way the caller needs it (the rules in the module doc)."""
        if getattr(self._local, "depth", 0):
            return method(*args)
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None and self._loop is not None and loop is self._loop.loop:
            return method(*args)  # on the private loop: part of a sync call
        if self.mode == "async":
            if loop is None:
                raise MixedModes(_MIXED["async"])
            return method(*args)
        if self.mode == "sync" or loop is None:
            return self.run_sync(method, direct, args)
        return Pending(self, method, direct, args)

    def run_sync(
        self, method: Callable[..., Coroutine[Any, Any, _T]], direct: bool, args: tuple[Any, ...]
    ) -> _T:
        """Run one call to its end in this thread (blocking I/O) or on the private loop."""
        self.claim("sync")
        with self._turn:
            self._local.depth = 1
            try:
                if direct and self._direct:
                    return run_now(method(*args))
                if self._loop is None:
                    self._loop = _LoopThread()
                return self._loop.run(method(*args))
            finally:
                self._local.depth = 0

    def stop(self) -> None:
        """Stop the private loop, if one was started (the client is closed)."""
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.stop()


_MIXED = {
    "async": "this client was used with await (async mode); a call from plain code needs a "
    "client of its own, e.g. a second instance or .sync() of a new one",
    "sync": "this client was used from plain code (sync mode); to await its calls, use a "
    "client of its own",
}


class Pending(Coroutine[Any, Any, Any]):
    """A call made under a running loop by a client of no mode yet: a coroutine that is also
    its result. ``await`` it (or hand it to ``asyncio.create_task``), or use it as the result
    (which runs the call, blocking)."""

    __slots__ = (
        "__weakref__",
        "_args",
        "_direct",
        "_inner",
        "_method",
        "_modes",
        "_result",
        "_state",
    )

    def __init__(
        self,
        modes: Modes,
        method: Callable[..., Coroutine[Any, Any, Any]],
        direct: bool,
        args: tuple[Any, ...],
    ) -> None:
        self._modes, self._method, self._direct, self._args = modes, method, direct, args
        self._state = "pending"  # then "awaited" or "resolved"
        self._result: Any = None
        self._inner: Coroutine[Any, Any, Any] | None = None

    def _coroutine(self) -> Coroutine[Any, Any, Any]:
        """What awaiting runs: the call itself (the client turns async), or its result."""
        if self._inner is None:
            if self._state == "resolved":
                self._inner = _done(self._result)
            else:
                self._state = "awaited"
                self._modes.claim("async")
                self._inner = self._method(*self._args)
        return self._inner

    def __await__(self) -> Any:
        return self._coroutine().__await__()

    def send(self, value: Any) -> Any:
        return self._coroutine().send(value)

    def throw(self, *args: Any) -> Any:
        return self._coroutine().throw(*args)

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()

    def _resolve(self) -> Any:
        if self._state == "awaited":
            raise RuntimeError("this call was awaited already; use what the await returned")
        if self._state == "pending":
            self._state = "resolved"  # before running: a failed call is not run twice
            self._result = self._modes.run_sync(self._method, self._direct, self._args)
        return self._result

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("_", "cr_", "gi_")):  # asyncio probing a coroutine: not a use
            raise AttributeError(name)
        return getattr(self._resolve(), name)

    def __repr__(self) -> str:
        return repr(self._resolve())

    def __str__(self) -> str:
        return str(self._resolve())

    def __bool__(self) -> bool:
        return bool(self._resolve())

    def __iter__(self) -> Any:
        return iter(self._resolve())

    def __len__(self) -> int:
        return len(self._resolve())

    def __getitem__(self, key: Any) -> Any:
        return self._resolve()[key]

    def __contains__(self, item: Any) -> bool:
        return item in self._resolve()

    def __del__(self) -> None:
        if getattr(self, "_state", None) == "pending":
            name = getattr(self._method, "__qualname__", "call")
            warnings.warn(
                f"{name}() was neither awaited nor used, so it never ran: await it, or use "
                "its result",
                RuntimeWarning,
                stacklevel=2,
            )


async def _done(value: _T) -> _T:
    return value


def dual(method: _F, *, direct: bool = True) -> _F:
    """Make an ``async def`` method of a client answer plain code and ``await`` alike.

    ``direct`` (ours): the method only awaits the client's connection, so a sync call can run
    it without a loop. A subclass's own coroutine methods are wrapped with ``direct=False``.
    """
    if getattr(method, "__openenv_dual__", False):
        return method

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        bound = functools.partial(method, self, **kwargs) if kwargs else method.__get__(self)
        return self._modes.dispatch(bound, direct, args)

    call.__openenv_dual__ = True  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


if TYPE_CHECKING:  # type checkers see the async signatures: `await env.reset()` is typed

    def dual(method: _F, *, direct: bool = True) -> _F:
        return method
