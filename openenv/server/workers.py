"""The server's own threads for sync environment calls (the pools :mod:`openenv.server.scheduling`
sends calls to).

Pooled calls run in a :class:`WorkerPool`, the server's own threads: one client (the address its
sessions count against) runs at most ``per_client`` calls there at once, so a few connections
doing expensive steps cannot take every thread; and a call that runs past ``time_limit_s``
raises :class:`CallOverran` for its session to be ended, while the pool lends a thread in its
place until that call returns (a thread cannot be interrupted). Its threads park between calls
and a call's end reaches the loop without a wakeup of its own when others ended just before
(see the class): a call costs the loop about half what ``run_in_executor`` did, which is what
lets a thousand sessions wait at once on one core.
"""

from __future__ import annotations

import asyncio
import collections
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class CallOverran(RuntimeError):
    """A sync environment call ran past the pool's time limit; it goes on in its thread."""

    def __init__(self, limit_s: float, future: asyncio.Future[Any]) -> None:
        super().__init__(f"ran past its {limit_s:g} s limit")
        self.limit_s = limit_s
        self.future = future  # done once the environment returns (then it may be closed)


@dataclass(eq=False, slots=True)
class _Job:
    """One call handed to a pool thread, and what came of it."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: asyncio.Future[Any]  # what the caller awaits
    loop: asyncio.AbstractEventLoop
    deadline: float = 0.0  # loop time past which it overran (with a time limit)
    ok: bool = False
    value: Any = None
    finished: bool = False  # its thread returned and the loop was told
    returned: asyncio.Future[Any] | None = None  # an overran call: done once it returns
    lent: bool = False  # a thread was lent in its place


def _ended() -> None:
    """What an ended call's job holds instead of its function (and its arguments)."""


class _Worker:
    """A pool thread, parked on its own lock until it is handed a call."""

    __slots__ = ("job", "lock")

    def __init__(self) -> None:
        self.job: _Job | None = None
        self.lock = threading.Lock()
        self.lock.acquire()  # parked: the next release hands it a job (or None: exit)


class WorkerPool:
    """The threads pooled environment calls run in (see the module docstring).

    ``workers`` threads (default: 4 per CPU, at least 8); ``per_client`` calls at once for one
    client (default: a quarter of the threads); ``time_limit_s`` per call (``None``: none).

    The pool is built for many threads that mostly wait, on one event loop. A thread is made
    only when no parked one can take a call, and parks on its own lock between calls (handing
    it a call wakes that one thread, the one parked last). A finished call is put on a list the
    loop reads, and only the first of those the loop has not read yet wakes the loop: a thousand
    calls ending together cost one wakeup, not a thousand, and a thread takes the interpreter
    lock once when its call returns and once when it is handed the next. The time limit is one
    timer for the whole pool, on the oldest running call (every call has the same limit).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        per_client: int | None = None,
        time_limit_s: float | None = None,
        name: str = "openenv-env",
        crowd: int | None = None,
    ) -> None:
        self.workers = workers or max(8, 4 * (os.cpu_count() or 1))
        self.crowd = crowd  # calls running at once from which the switch interval is raised
        self._crowded = False
        self.per_client = per_client or max(1, self.workers // 4)
        self.time_limit_s = time_limit_s or None
        self.name = name
        self.lent = 0  # threads lent in place of calls that overran
        self._busy: collections.Counter[str] = collections.Counter()
        self._held: dict[str, collections.deque[asyncio.Future[None]]] = {}  # over their share
        self._idle: list[_Worker] = []  # parked threads, the last parked last
        self._threads = 0  # threads started and not told to exit
        self._running = 0  # calls handed to a thread whose end the loop has not read
        self._queued: collections.deque[_Job] = collections.deque()  # waiting for a thread
        self._done: collections.deque[_Job] = collections.deque()  # ended, for the loop to read
        self._told = False  # the loop was woken to read _done and has not yet
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timed: collections.deque[_Job] = collections.deque()  # running, oldest first
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    @property
    def capacity(self) -> int:
        """Calls that may run at once: the threads, and those lent for calls that overran."""
        return self.workers + self.lent

    async def call(self, owner: str | None, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` in a thread, within ``owner``'s share and the time limit."""
        if self._loop is None or self._loop.is_closed():
            self._bind(asyncio.get_running_loop())
        if owner is None:
            return await self._run(fn, args)
        if self._busy[owner] >= self.per_client:
            await self._turn(owner)
        else:
            self._busy[owner] += 1
        try:
            return await self._run(fn, args)
        finally:
            self._release(owner)

    async def _turn(self, owner: str) -> None:
        """Wait (first come, first served) until ``owner`` has a call of its share free."""
        turn = asyncio.get_running_loop().create_future()
        self._held.setdefault(owner, collections.deque()).append(turn)
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                self._release(owner)  # handed a turn it will not use
            turn.cancel()
            raise

    def _release(self, owner: str) -> None:
        """One call of ``owner`` is over: its turn goes to the next call it holds back."""
        held = self._held.get(owner)
        while held:
            turn = held.popleft()
            if not turn.done():
                turn.set_result(None)  # the share passes on: _busy[owner] stays
                return
        self._held.pop(owner, None)
        self._busy[owner] -= 1
        if self._busy[owner] <= 0:
            del self._busy[owner]

    async def _run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        if self._closed:
            raise RuntimeError("the worker pool is shut down")
        loop = asyncio.get_running_loop()
        job = _Job(fn, args, loop.create_future(), loop)
        if self._running < self.capacity:
            self._start(job)
        else:
            self._queued.append(job)
        return await job.future  # cancelled: a queued call is skipped, a running one goes on

    def _bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serve ``loop``: the first one, or a new one once the last was closed (the calls of
        a closed loop are nobody's any more; their threads park when they return)."""
        if self._crowded:
            self._crowded = False
            _crowd_switch(-1)
        self._loop, self._told, self._timer = loop, False, None
        self._running = self.lent = 0
        for pending in (self._done, self._timed, self._queued, self._busy, self._held):
            pending.clear()

    def _start(self, job: _Job) -> None:
        self._running += 1
        if self.crowd and self._running >= self.crowd and not self._crowded:
            self._crowded = True
            _crowd_switch(+1)
        if self.time_limit_s is not None:
            job.deadline = job.loop.time() + self.time_limit_s
            if len(self._timed) > 2 * self._running + 64:  # ended calls behind a running one
                self._timed = collections.deque(j for j in self._timed if not j.finished)
            self._timed.append(job)
            if self._timer is None:
                self._timer = job.loop.call_at(job.deadline, self._check_time)
        if self._idle:
            worker = self._idle.pop()
        else:
            worker = _Worker()
            name = f"{self.name}_{self._threads}"
            thread = threading.Thread(target=self._work, args=(worker,), name=name, daemon=True)
            try:
                thread.start()
            except RuntimeError as exc:  # the system has no thread to give: this call fails
                self._running -= 1
                job.finished = True
                job.future.set_exception(RuntimeError(f"no thread for the call: {exc}"))
                return
            self._threads += 1
        worker.job = job
        worker.lock.release()

    def _work(self, worker: _Worker) -> None:
        """A pool thread: run the calls it is handed until it is handed none."""
        while True:
            worker.lock.acquire()
            job = worker.job
            if job is None:
                return
            try:
                job.value, job.ok = job.fn(*job.args), True
            except StopIteration as exc:  # an asyncio future cannot hold one
                job.value = RuntimeError(f"the call raised StopIteration: {exc}")
            except BaseException as exc:
                job.value = exc
            worker.job = None
            if self._closed:
                self._tell(job)
                return
            self._idle.append(worker)  # parked before the loop reads the end: see _finished
            self._tell(job)

    def _tell(self, job: _Job) -> None:
        """In the call's thread: put the ended call where the loop reads it (one wakeup for
        all the calls that end before the loop reads them)."""
        try:
            if job.loop is not self._loop:  # a pool used from another loop: told one by one
                job.loop.call_soon_threadsafe(self._finished, job)
                return
            self._done.append(job)
            if not self._told:
                self._told = True
                job.loop.call_soon_threadsafe(self._read_done)
        except RuntimeError:  # the loop is closed: nobody waits for the call any more
            pass

    def _read_done(self) -> None:
        self._told = False  # first: a call ending from here on wakes the loop again
        done = self._done
        while done:
            self._finished(done.popleft())

    def _finished(self, job: _Job) -> None:
        """On the loop: a call's thread returned (its thread is parked already)."""
        job.finished = True
        self._running -= 1
        if self._crowded and self._running <= (self.crowd or 0) // 2:
            self._crowded = False
            _crowd_switch(-1)
        if job.lent:
            self.lent -= 1
            if self._threads > self.capacity and self._idle:  # the lent thread is not kept
                self._threads -= 1
                self._idle.pop().lock.release()
        if job.returned is not None:
            if not job.returned.done():
                job.returned.set_result(None)
        elif not job.future.done():
            if job.ok:
                job.future.set_result(job.value)
            else:
                job.future.set_exception(job.value)
        job.fn, job.args, job.value = _ended, (), None  # kept for the time limit: keep no more
        while self._queued and self._running < self.capacity:
            queued = self._queued.popleft()
            if not queued.future.done():  # its caller went away before it started
                self._start(queued)

    def _check_time(self) -> None:
        """The timer: calls running past the limit raise :class:`CallOverran`."""
        self._timer = None
        timed = self._timed
        while timed:
            job = timed[0]
            if job.finished:
                timed.popleft()
            elif job.deadline <= job.loop.time():
                timed.popleft()
                self._overran(job)
            else:
                self._timer = job.loop.call_at(job.deadline, self._check_time)
                return

    def _overran(self, job: _Job) -> None:
        if job.future.done():  # its caller went away: the thread is simply busy until it ends
            return
        job.returned = job.loop.create_future()
        assert self.time_limit_s is not None
        job.future.set_exception(CallOverran(self.time_limit_s, job.returned))
        # One more thread while the overrunning call holds its own, at most as many as the
        # pool has; then calls wait.
        if self.lent < self.workers:
            self.lent += 1
            job.lent = True
            while self._queued and self._running < self.capacity:
                queued = self._queued.popleft()
                if not queued.future.done():
                    self._start(queued)

    def shutdown(self) -> None:
        """Cancel the calls not started; parked threads exit, busy ones after their call."""
        self._closed = True
        if self._crowded:
            self._crowded = False
            _crowd_switch(-1)
        for job in self._queued:
            job.future.cancel()
        self._queued.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._idle:
            self._threads -= 1
            self._idle.pop().lock.release()  # its job is None: it exits


# With hundreds of threads waiting for the interpreter lock, each wakes every switch interval to
# ask for it (CPython's GIL), and past a few hundred those wakeups take the whole core: the
# thread holding the lock gets a sliver of it, more threads pile up, and the server collapses
# (1,024 sessions of a 1 s-sleep env, 5 ms: about one run in three fell to ~100 steps/s with
# ~500 context switches a step; 50 ms: none). While a pool of waiting calls runs ``crowd`` of
# them at once, the interval is CROWD_SWITCH_S (the process's own value is put back once they
# are half as many); a computing thread then holds the lock up to that long before the loop
# takes it back.
CROWD_SWITCH_S = 0.05
DEFAULT_CROWD = 256
_crowds = [0, 0.0]  # pools crowded now, and the switch interval from before the first


def _crowd_switch(change: int) -> None:
    """One more (+1) or one fewer (-1) pool running a crowd of waiting calls."""
    before = _crowds[0]
    _crowds[0] = max(0, before + change)
    if before == 0 and _crowds[0] == 1:
        _crowds[1] = sys.getswitchinterval()
        if _crowds[1] < CROWD_SWITCH_S:
            sys.setswitchinterval(CROWD_SWITCH_S)
    elif before == 1 and _crowds[0] == 0 and abs(sys.getswitchinterval() - CROWD_SWITCH_S) < 1e-6:
        sys.setswitchinterval(_crowds[1])  # unless someone else changed it meanwhile


WAIT_THREADS_VAR = "OPENENV_WAIT_THREADS"
DEFAULT_WAIT_THREADS = 2048


def wait_pool(max_sessions: int | None = None, time_limit_s: float | None = None) -> WorkerPool:
    """The large pool of waiting calls: one thread per live session at most, within
    ``$OPENENV_WAIT_THREADS`` (default 2,048); one client may hold half of it."""
    raw = os.environ.get(WAIT_THREADS_VAR, "").strip()
    limit = int(raw) if raw else DEFAULT_WAIT_THREADS
    workers = max(8, min(limit, max_sessions or limit))
    return WorkerPool(
        workers,
        per_client=max(1, workers // 2),
        time_limit_s=time_limit_s,
        name="openenv-wait",
        crowd=DEFAULT_CROWD,
    )
