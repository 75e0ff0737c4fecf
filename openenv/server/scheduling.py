"""Where a session's sync environment calls run: the seam between the session manager and the
speed machinery.

A :class:`Scheduler` runs one sync call of one session (``await scheduler.run(calls, fn,
*args)``). :class:`WorkerThreads` is the plain one: every call in the shared worker pool, so the
event loop never runs environment code. :class:`Adaptive` (the default) runs a session's calls
on the event loop once they proved shorter than the hop to a worker thread (a fast grid world
or Atari step), and sends the session back to the pool the moment they stop being so.

The adaptive rule, with its numbers in one :class:`Tuning`: a session whose calls average under
``budget_s`` runs them inline. The average moves slowly and an inline reading counts for at most
``spike_cap`` budgets, so a call the OS preempted does not send a fast session away.
``slow_strikes`` inline calls longer than ``slow_limit_s`` send it to the pool for good (a strike
expires after ``strike_expiry`` calls), and so does a single one longer than ``evict_s``: a
session holds the event loop at most once. Readings taken in the pool include waiting for the GIL,
which a busy event loop holds, so a pooled session that may be fast (average under
``slow_limit_s``) retries one call inline every ``retry_first`` pooled calls, twice as rarely
after each miss. :class:`CallStats` is one session's record; the rule learns from the durations
its clock gives, so a test can feed it any durations it likes. A reset starts a new record: its
options may change what a step costs (Atari's ``frameskip``), so the reset and the steps after
it run in the pool until they prove fast again.

Pooled calls run in a :class:`WorkerPool`, the server's own threads: one client (the address its
sessions count against) runs at most ``per_client`` calls there at once, so a few connections
doing expensive steps cannot take every thread; and a call that runs past ``time_limit_s``
raises :class:`CallOverran` for its session to be ended, while the pool lends a thread in its
place until that call returns (a thread cannot be interrupted).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Clock = Callable[[], float]


@dataclass(frozen=True)
class Tuning:
    """The numbers of the adaptive rule (see the module docstring)."""

    budget_s: float = 0.001  # a call this short costs less than the hop to a worker thread
    slow_limit_s: float = 0.01
    slow_strikes: int = 3
    evict_s: float = 0.1  # one inline call this long sends the session to the pool for good
    strike_expiry: int = 1000
    inline_after: int = 3  # readings before a session may go inline
    spike_cap: int = 4
    retry_first: int = 32
    weight: float = 0.1  # of a new reading in the moving average


@dataclass(slots=True)
class CallStats:
    """One session's record of its sync calls, kept by the scheduler."""

    calls: int = 0  # sync calls made so far
    average_s: float = 0.0  # moving average of their duration
    inline: bool = False  # they run on the event loop (they proved fast)
    strikes: int = 0  # inline calls that took longer than the slow limit
    retry_in: int = field(default=Tuning.retry_first)  # pooled calls until an inline retry
    retry_gap: int = 0  # pooled calls between inline retries (doubles after each miss)
    owner: str | None = None  # the client whose share of the pool its calls use


class CallOverran(RuntimeError):
    """A sync environment call ran past the pool's time limit; it goes on in its thread."""

    def __init__(self, limit_s: float, future: asyncio.Future[Any]) -> None:
        super().__init__(f"ran past its {limit_s:g} s limit")
        self.limit_s = limit_s
        self.future = future  # done once the environment returns (then it may be closed)


class WorkerPool:
    """The threads pooled environment calls run in (see the module docstring).

    ``workers`` threads (default: 4 per CPU, at least 8); ``per_client`` calls at once for one
    client (default: a quarter of the threads); ``time_limit_s`` per call (``None``: none).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        per_client: int | None = None,
        time_limit_s: float | None = None,
    ) -> None:
        self.workers = workers or max(8, 4 * (os.cpu_count() or 1))
        self.per_client = per_client or max(1, self.workers // 4)
        self.time_limit_s = time_limit_s or None
        self._executor = concurrent.futures.ThreadPoolExecutor(
            self.workers, thread_name_prefix="openenv-env"
        )
        self._busy: collections.Counter[str] = collections.Counter()
        self._turns: asyncio.Condition | None = None
        self.lent = 0  # threads lent in place of calls that overran

    async def call(self, owner: str | None, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` in a thread, within ``owner``'s share and the time limit."""
        if owner is None:
            return await self._run(fn, args)
        turns = self._turns = self._turns or asyncio.Condition()
        async with turns:
            await turns.wait_for(lambda: self._busy[owner] < self.per_client)
            self._busy[owner] += 1
        try:
            return await self._run(fn, args)
        finally:
            async with turns:
                self._busy[owner] -= 1
                if not self._busy[owner]:
                    del self._busy[owner]
                turns.notify_all()

    async def _run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        future = asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        if self.time_limit_s is None:
            return await future
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.time_limit_s)
        except TimeoutError:
            self._lend(future)
            raise CallOverran(self.time_limit_s, future) from None

    def _lend(self, future: asyncio.Future[Any]) -> None:
        """One more thread while the overrunning call holds its own (CPython's executor grows
        up to ``_max_workers``); at most as many as the pool has, then calls wait."""
        if self.lent >= self.workers:
            return
        self.lent += 1
        self._executor._max_workers += 1  # type: ignore[attr-defined]

        def give_back(_: object) -> None:
            self.lent -= 1
            self._executor._max_workers -= 1  # type: ignore[attr-defined]

        future.add_done_callback(give_back)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class Scheduler(Protocol):
    """Runs one sync environment call of a session and returns its result."""

    async def run(self, calls: CallStats, fn: Callable[..., Any], *args: Any) -> Any: ...


class WorkerThreads:
    """The plain scheduler: every sync call in the worker pool."""

    def __init__(self, pool: WorkerPool | None = None) -> None:
        self.pool = pool or WorkerPool()

    async def run(self, calls: CallStats, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.pool.call(calls.owner, fn, *args)


class Adaptive:
    """Inline once a session's calls proved fast, the worker pool otherwise (module docstring)."""

    def __init__(
        self,
        tuning: Tuning | None = None,
        clock: Clock = time.perf_counter,
        pool: WorkerPool | None = None,
    ) -> None:
        self.tuning = tuning or Tuning()
        self.clock = clock
        self.pool = pool or WorkerPool()

    async def run(self, calls: CallStats, fn: Callable[..., Any], *args: Any) -> Any:
        if calls.inline or self.retry_due(calls):
            start = self.clock()
            try:
                return fn(*args)
            finally:
                self.learn(calls, self.clock() - start, inline=True)
        took: list[float] = []
        try:
            return await self.pool.call(calls.owner, self._timed, fn, args, took)
        finally:
            if took:
                self.learn(calls, took[0], inline=False)

    def _timed(self, fn: Callable[..., Any], args: tuple[Any, ...], took: list[float]) -> Any:
        start = self.clock()
        try:
            return fn(*args)
        finally:
            took.append(self.clock() - start)

    def retry_due(self, calls: CallStats) -> bool:
        """Whether this pooled call should be tried inline (see ``retry_first``)."""
        t = self.tuning
        if (
            calls.strikes >= t.slow_strikes
            or calls.calls < t.inline_after
            or calls.average_s > t.slow_limit_s
        ):
            return False
        calls.retry_in -= 1
        return calls.retry_in <= 0

    def learn(self, calls: CallStats, took: float, *, inline: bool) -> None:
        """Count a call that took ``took`` seconds, inline or in the pool."""
        t = self.tuning
        if inline and took > t.evict_s:
            calls.strikes = t.slow_strikes  # it held the event loop: never again
        elif inline and took > t.slow_limit_s:
            calls.strikes += 1
        elif calls.strikes and calls.calls % t.strike_expiry == 0:
            calls.strikes -= 1  # a rare preempted call must not add up over hours
        sample = min(took, t.spike_cap * t.budget_s) if inline else took
        calls.calls += 1
        weight = max(t.weight, 1 / calls.calls)  # the plain mean of the first readings
        calls.average_s += weight * (sample - calls.average_s)
        allowed = calls.strikes < t.slow_strikes and calls.calls >= t.inline_after
        if inline and not calls.inline:  # a retry: one fast reading brings the session back
            calls.inline = allowed and took <= t.budget_s
            if calls.inline:
                calls.average_s, calls.retry_gap = took, 0
            else:
                calls.retry_gap = 2 * (calls.retry_gap or t.retry_first)
            calls.retry_in = calls.retry_gap or t.retry_first
            return
        was_inline, calls.inline = calls.inline, allowed and calls.average_s <= t.budget_s
        if was_inline and not calls.inline:
            calls.retry_in = calls.retry_gap or t.retry_first


def scheduler_for(inline_budget_s: float, pool: WorkerPool | None = None) -> Scheduler:
    """The adaptive scheduler with that inline budget, or the plain one when it is 0."""
    if inline_budget_s > 0:
        return Adaptive(Tuning(budget_s=inline_budget_s), pool=pool)
    return WorkerThreads(pool)
