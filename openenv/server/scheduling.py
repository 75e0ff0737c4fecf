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

Calls that wait (a sleep, a subprocess, an HTTP call to a judge or a model) must not hold one
of the few threads of the bounded pool: a session whose pooled calls spend most of their time
waiting (``wait_after`` readings in a row longer than ``wait_min_s`` whose thread CPU time is
under ``wait_share`` of their wall time), or whose environment declares ``STEP_KIND = "io"``,
runs its calls in a second, large pool (``waits``) whose threads are made only as calls need
them; a waiting thread costs no CPU, so many of them do not starve the event loop. A call there
that computes after all (thread CPU over ``cpu_max_s``, or over ``cpu_share`` of its wall time
and over ``slow_limit_s``; the absolute bound holds when many threads share the GIL and each
gets a small share) sends the session to the bounded pool, so computing stays bounded per
client; ``STEP_KIND = "cpu"`` keeps a session there from the start. The scheduler serves one
environment, so a session not sorted yet runs where the last session it sorted went (the
waits, before any was): a thousand waiting sessions are not each measured behind the few
threads first, and once one session computed, new ones start bounded.

Pooled calls run in a :class:`~openenv.server.workers.WorkerPool`, the server's own threads, with
a time limit and a share per client (:mod:`openenv.server.workers`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from openenv.server.workers import (
    CROWD_SWITCH_S,
    CallOverran,
    WorkerPool,
    wait_pool,
)

__all__ = [
    "CROWD_SWITCH_S",
    "Adaptive",
    "CallOverran",
    "CallStats",
    "Scheduler",
    "Tuning",
    "WorkerPool",
    "WorkerThreads",
    "scheduler_for",
    "wait_pool",
]

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
    wait_min_s: float = 0.002  # a pooled call shorter than this says nothing about waiting
    wait_share: float = 0.25  # CPU under this share of a call's wall time: it waited
    cpu_share: float = 0.5  # CPU over this share (and over slow_limit_s): it computed
    wait_after: int = 2  # waiting readings in a row before the session's calls go to the waits
    cpu_max_s: float = 0.05  # one call computing this long computes, whatever its share


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
    kind: str = "auto"  # what the environment declares: "io", "cpu" or "auto"
    waits: bool = False  # its calls run in the large pool of waiting calls
    waited: int = 0  # waiting readings in a row
    sorted: bool = False  # where its calls run is known (declared, or measured)

    def __post_init__(self) -> None:
        self.waits = self.kind == "io"
        self.sorted = self.kind in ("io", "cpu")


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
        waits: WorkerPool | None = None,
        cpu_clock: Clock = time.thread_time,
    ) -> None:
        self.tuning = tuning or Tuning()
        self.clock = clock
        self.cpu_clock = cpu_clock  # CPU time of the calling thread
        self.pool = pool or WorkerPool()
        self.waits = waits or wait_pool(time_limit_s=self.pool.time_limit_s)
        # Where the last session sorted went: unsorted sessions (same env) run there.
        self.sessions_wait = True

    async def run(self, calls: CallStats, fn: Callable[..., Any], *args: Any) -> Any:
        if not calls.sorted:  # not measured yet: where the last session sorted went
            calls.waits = self.sessions_wait
        if calls.inline or self.retry_due(calls):
            start = self.clock()
            try:
                return fn(*args)
            finally:
                self.learn(calls, self.clock() - start, inline=True)
        took: list[float] = []
        pool = self.waits if calls.waits else self.pool
        try:
            return await pool.call(calls.owner, self._timed, fn, args, took)
        finally:
            if took:
                self.learn(calls, took[0], inline=False, cpu=took[1])

    def _timed(self, fn: Callable[..., Any], args: tuple[Any, ...], took: list[float]) -> Any:
        start, cpu = self.clock(), self.cpu_clock()
        try:
            return fn(*args)
        finally:
            took += (self.clock() - start, self.cpu_clock() - cpu)

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

    def learn(
        self, calls: CallStats, took: float, *, inline: bool, cpu: float | None = None
    ) -> None:
        """Count a call that took ``took`` seconds (``cpu`` of them computing, when measured
        in a thread), inline or in a pool."""
        t = self.tuning
        if cpu is not None:
            self.sort(calls, took, cpu)
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

    def sort(self, calls: CallStats, took: float, cpu: float) -> None:
        """Send a session's calls to the waits or back to the bounded pool, from one pooled
        call's wall time ``took`` and thread CPU time ``cpu`` (see the module docstring)."""
        t = self.tuning
        if calls.kind == "cpu":
            return
        if cpu > t.cpu_max_s or (cpu > t.cpu_share * took and cpu > t.slow_limit_s):
            calls.waits = self.sessions_wait = False  # it computes: the bounded pool
            calls.waited, calls.sorted = 0, True
        elif took >= t.wait_min_s and cpu < t.wait_share * took:
            calls.waited += 1
            if calls.waited >= t.wait_after:
                calls.waits = self.sessions_wait = calls.sorted = True
        elif not calls.waits:
            calls.waited = 0


def scheduler_for(
    inline_budget_s: float, pool: WorkerPool | None = None, waits: WorkerPool | None = None
) -> Scheduler:
    """The adaptive scheduler with that inline budget, or the plain one when it is 0."""
    if inline_budget_s > 0:
        return Adaptive(Tuning(budget_s=inline_budget_s), pool=pool, waits=waits)
    return WorkerThreads(pool)
