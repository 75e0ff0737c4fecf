"""Steps that wait (a sleep, a subprocess, an HTTP call) run among many threads, steps that
compute stay in the small bounded pool: the rule fed with chosen wall and CPU times (no clock of
the machine involved), and sessions whose waiting steps overlap far past the bounded pool."""

from __future__ import annotations

import threading

import pytest
from wire_apps import ProbeAction, ProbeEnvironment

from openenv.server.scheduling import Adaptive, CallStats, Tuning, WorkerPool, wait_pool
from openenv.server.sessions import SessionManager


def pooled(rule: Adaptive, calls: CallStats, took: float, cpu: float, times: int = 1) -> None:
    """Count ``times`` pooled calls of ``took`` seconds, ``cpu`` of them computing."""
    for _ in range(times):
        rule.learn(calls, took, inline=False, cpu=cpu)


def test_a_session_whose_calls_wait_goes_to_the_waiting_threads() -> None:
    rule, calls = Adaptive(), CallStats()
    pooled(rule, calls, 1.0, 0.001, times=Tuning.wait_after - 1)
    assert not calls.waits  # one reading may be a fluke
    pooled(rule, calls, 1.0, 0.001)
    assert calls.waits


def test_a_waiting_session_that_computes_goes_back_to_the_bounded_pool() -> None:
    rule, calls = Adaptive(), CallStats()
    pooled(rule, calls, 1.0, 0.001, times=3)
    pooled(rule, calls, 0.5, 0.45)  # half a second of computing: bounded again
    assert not calls.waits
    pooled(rule, calls, 1.0, 0.001)
    assert not calls.waits  # it must prove waiting again, wait_after readings in a row


def test_short_calls_and_calls_that_compute_never_count_as_waiting() -> None:
    rule, calls = Adaptive(), CallStats()
    pooled(rule, calls, 0.001, 0.0, times=10)  # under wait_min_s: a thread hop, no more
    pooled(rule, calls, 0.2, 0.15, times=10)  # computing
    assert not calls.waits


def test_the_environment_declares_its_kind() -> None:
    rule = Adaptive()
    io, cpu = CallStats(kind="io"), CallStats(kind="cpu")
    assert io.waits and not cpu.waits  # io waits from its first call
    pooled(rule, cpu, 1.0, 0.001, times=10)
    assert not cpu.waits  # declared cpu: never among the waiting threads


def test_the_waiting_pool_grows_with_sessions_within_its_bound(monkeypatch) -> None:
    assert wait_pool(1024).workers == 1024
    assert wait_pool(100_000).workers == 2048
    monkeypatch.setenv("OPENENV_WAIT_THREADS", "300")
    pool = wait_pool(1024)
    assert (pool.workers, pool.per_client) == (300, 150)  # one client: half of it at most
    assert WorkerPool().workers < 300  # the bounded pool stays small
    pool.shutdown()


class Gathering(ProbeEnvironment):
    """Each step waits until ``PARTY`` steps are in progress at once (or fails after 30 s)."""

    STEP_KIND = "io"
    PARTY = 24  # more than the bounded pool's threads
    barrier = threading.Barrier(PARTY, timeout=30)
    threads: set[str] = set()

    def step(self, action):
        Gathering.threads.add(threading.current_thread().name)
        Gathering.barrier.wait()
        return super().step(action)


async def test_io_steps_of_many_sessions_all_wait_at_once() -> None:
    """24 sessions whose steps block until all 24 are blocked: only possible when waiting
    steps do not queue behind the bounded pool (8 threads here)."""
    import asyncio

    manager = SessionManager(Gathering, idle_timeout_s=None)
    assert manager.pool.workers < Gathering.PARTY
    sessions = [await manager.open() for _ in range(Gathering.PARTY)]
    for session in sessions:
        await manager.reset(session)
    steps = [manager.step(s, ProbeAction(label="together")) for s in sessions]
    observations = await asyncio.gather(*steps)
    assert [o.label for o in observations] == ["together"] * Gathering.PARTY
    assert all(name.startswith("openenv-wait") for name in Gathering.threads)
    await manager.shutdown()


async def test_a_measured_waiting_session_moves_to_the_waiting_threads() -> None:
    """On fake clocks: each step 'takes' one second of wall time and no CPU."""
    wall, cpu = [0.0], [0.0]
    names: list[str] = []

    class Sleeper(ProbeEnvironment):
        def step(self, action):
            names.append(threading.current_thread().name)
            wall[0] += 1.0  # what the step took, without sleeping
            return super().step(action)

    rule = Adaptive(clock=lambda: wall[0], cpu_clock=lambda: cpu[0])
    pooled(rule, CallStats(), 0.5, 0.45)  # another session computed: new ones start bounded
    manager = SessionManager(Sleeper, idle_timeout_s=None, scheduler=rule)
    session = await manager.open()
    await manager.reset(session)
    for _ in range(Tuning.wait_after + 1):
        await manager.step(session, ProbeAction(label="wait"))
    assert names[0].startswith("openenv-env") and names[-1].startswith("openenv-wait")
    await manager.reset(session)  # still waiting after a reset: no trip through the small pool
    await manager.step(session, ProbeAction(label="wait"))
    assert names[-1].startswith("openenv-wait")
    await manager.shutdown()


def test_new_sessions_start_where_the_last_sorted_one_went() -> None:
    rule = Adaptive()
    assert rule.sessions_wait  # before any was sorted: among the waits (measured there)
    pooled(rule, CallStats(), 0.5, 0.45)  # a session that computes: new ones start bounded
    assert not rule.sessions_wait
    first = CallStats()
    pooled(rule, first, 1.0, 0.001, times=Tuning.wait_after)
    assert first.waits and rule.sessions_wait  # the next new record starts among the waits


def test_many_threads_sharing_the_gil_do_not_hide_a_computing_call() -> None:
    """Six threads computing at once each get a sixth of the CPU: 0.5 s of wall time, 80 ms
    of CPU is under any share, but over the absolute bound."""
    rule, calls = Adaptive(), CallStats()
    pooled(rule, calls, 0.5, 0.08)
    assert not calls.waits and calls.sorted


async def test_calls_ending_together_are_all_answered_and_threads_are_reused() -> None:
    """64 calls that block until all 64 run, then 64 one after another: every answer arrives
    (the completions of calls ending at once share wakeups of the loop), and the calls one
    after another run on the thread parked last instead of new ones."""
    import asyncio

    pool = WorkerPool(64, name="probe")
    barrier = threading.Barrier(64, timeout=30)

    def meet(i: int) -> tuple[int, str]:
        barrier.wait()
        return i, threading.current_thread().name

    answers = await asyncio.gather(*(pool.call(None, meet, i) for i in range(64)))
    assert [i for i, _ in answers] == list(range(64))
    assert len({name for _, name in answers}) == 64 and pool._threads == 64
    names = {await pool.call(None, lambda: threading.current_thread().name) for _ in range(64)}
    assert len(names) == 1 and pool._threads == 64  # the same parked thread, none made
    assert all(name.startswith("probe") for name in names)
    pool.shutdown()


async def test_a_call_past_the_limit_is_told_and_a_thread_is_lent_in_its_place() -> None:
    import asyncio

    from openenv.server.scheduling import CallOverran

    pool = WorkerPool(1, time_limit_s=0.2)
    release = threading.Event()
    with pytest.raises(CallOverran) as told:
        await pool.call(None, release.wait, 30)
    overran = told.value
    assert overran.limit_s == 0.2 and not overran.future.done()
    assert pool.lent == 1  # the one thread is held: another is lent
    assert await asyncio.wait_for(pool.call(None, lambda: "served"), 10) == "served"
    release.set()
    await asyncio.wait_for(overran.future, 10)  # done once the call returned
    assert pool.lent == 0
    pool.shutdown()


async def test_errors_come_back_and_a_call_whose_caller_left_never_starts() -> None:
    import asyncio

    pool = WorkerPool(1)
    release, ran = threading.Event(), []

    def boom() -> None:
        raise ValueError("bad action")

    def stop() -> None:
        raise StopIteration  # an asyncio future cannot carry it: a RuntimeError instead

    for fn, kind in ((boom, ValueError), (stop, RuntimeError)):
        with pytest.raises(kind):
            await pool.call(None, fn)
    busy = asyncio.ensure_future(pool.call(None, release.wait, 30))
    queued = asyncio.ensure_future(pool.call(None, ran.append, "queued"))
    await asyncio.sleep(0)
    queued.cancel()  # its caller went away while the one thread was busy
    release.set()
    assert await busy is True
    assert await pool.call(None, ran.append, "next") is None
    assert ran == ["next"]
    pool.shutdown()


async def test_a_crowd_of_waiting_calls_raises_the_switch_interval_while_it_lasts() -> None:
    """Hundreds of threads asking for the interpreter lock every 5 ms take the core: while a
    pool runs its crowd of waiting calls the interval is longer, then it is put back."""
    import asyncio
    import sys

    from openenv.server.scheduling import CROWD_SWITCH_S

    before = sys.getswitchinterval()
    pool = WorkerPool(8, crowd=4)
    barrier, release = threading.Barrier(5, timeout=30), threading.Event()

    def wait() -> None:
        barrier.wait()
        release.wait(30)

    calls = [asyncio.ensure_future(pool.call(None, wait)) for _ in range(4)]
    await asyncio.get_running_loop().run_in_executor(None, barrier.wait)  # all four running
    assert sys.getswitchinterval() == pytest.approx(max(before, CROWD_SWITCH_S))
    release.set()
    await asyncio.gather(*calls)
    assert sys.getswitchinterval() == pytest.approx(before)
    pool.shutdown()


def test_a_pool_serves_a_new_event_loop_once_the_last_one_closed() -> None:
    import asyncio

    pool = WorkerPool(2, time_limit_s=30)
    for _ in range(2):  # each asyncio.run is a new loop, the last one closed
        assert asyncio.run(pool.call(None, lambda: "answered")) == "answered"
    pool.shutdown()
