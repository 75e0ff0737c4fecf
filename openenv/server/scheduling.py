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
expires after ``strike_expiry`` calls). Readings taken in the pool include waiting for the GIL,
which a busy event loop holds, so a pooled session that may be fast (average under
``slow_limit_s``) retries one call inline every ``retry_first`` pooled calls, twice as rarely
after each miss. :class:`CallStats` is one session's record; the rule learns from the durations
its clock gives, so a test can feed it any durations it likes.
"""

from __future__ import annotations

import asyncio
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


class Scheduler(Protocol):
    """Runs one sync environment call of a session and returns its result."""

    async def run(self, calls: CallStats, fn: Callable[..., Any], *args: Any) -> Any: ...


class WorkerThreads:
    """The plain scheduler: every sync call in the shared worker pool."""

    async def run(self, calls: CallStats, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


class Adaptive:
    """Inline once a session's calls proved fast, the worker pool otherwise (module docstring)."""

    def __init__(self, tuning: Tuning | None = None, clock: Clock = time.perf_counter) -> None:
        self.tuning = tuning or Tuning()
        self.clock = clock

    async def run(self, calls: CallStats, fn: Callable[..., Any], *args: Any) -> Any:
        if calls.inline or self.retry_due(calls):
            start = self.clock()
            try:
                return fn(*args)
            finally:
                self.learn(calls, self.clock() - start, inline=True)
        took: list[float] = []
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(None, self._timed, fn, args, took)
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
        if inline and took > t.slow_limit_s:
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


def scheduler_for(inline_budget_s: float) -> Scheduler:
    """The adaptive scheduler with that inline budget, or the plain one when it is 0."""
    return Adaptive(Tuning(budget_s=inline_budget_s)) if inline_budget_s > 0 else WorkerThreads()
