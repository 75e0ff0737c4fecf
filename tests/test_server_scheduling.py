"""Where a session's sync calls run: the adaptive rule fed with chosen durations (no clock of
the machine involved), and the plain scheduler that always uses the worker pool."""

from __future__ import annotations

import itertools
import threading

from wire_apps import ProbeAction, ProbeEnvironment

from openenv.server.scheduling import Adaptive, CallStats, Tuning, WorkerThreads
from openenv.server.sessions import SessionManager

FAST, SLOW = 0.0001, 0.05  # seconds: far under the 1 ms budget, far over the 10 ms slow limit


def fed(rule: Adaptive, calls: CallStats, took: float, times: int = 1) -> None:
    """Count ``times`` calls of ``took`` seconds where the rule would run them."""
    for _ in range(times):
        inline = calls.inline or rule.retry_due(calls)
        rule.learn(calls, took, inline=inline)


def test_a_session_goes_inline_once_its_calls_proved_fast() -> None:
    rule, calls = Adaptive(), CallStats()
    fed(rule, calls, FAST, times=Tuning.inline_after - 1)
    assert not calls.inline  # too few readings yet
    fed(rule, calls, FAST)
    assert calls.inline


def test_slow_calls_leave_the_loop_and_three_strikes_keep_them_off_it() -> None:
    rule, calls = Adaptive(), CallStats()
    fed(rule, calls, FAST, times=10)
    fed(rule, calls, SLOW, times=3)
    assert not calls.inline and calls.strikes == 3
    fed(rule, calls, FAST, times=500)  # fast again, in the pool: never retried inline
    assert not calls.inline


def test_one_long_inline_call_sends_the_session_to_the_pool_for_good() -> None:
    rule, calls = Adaptive(), CallStats()
    fed(rule, calls, FAST, times=30)
    assert calls.inline
    fed(rule, calls, 0.5)  # a step that held the event loop half a second
    assert not calls.inline
    fed(rule, calls, FAST, times=500)
    assert not calls.inline  # never retried inline


async def test_a_reset_sends_the_next_steps_to_the_pool_until_they_prove_fast() -> None:
    """A reset may change what a step costs (Atari's frameskip): the steps after it are
    measured in a worker thread first, never run on the event loop on the old record."""
    seen: list[int] = []

    class Probe(ProbeEnvironment):
        def step(self, action):
            seen.append(threading.get_ident())
            return super().step(action)

    # Every call measures 10 µs whatever the machine's load: the rule sees fast calls.
    ticks = itertools.count()
    rule = Adaptive(clock=lambda: next(ticks) * 1e-5)
    manager = SessionManager(Probe, idle_timeout_s=None, scheduler=rule)
    session = await manager.open()
    await manager.reset(session)
    for _ in range(500):  # until it runs on the loop (the rule's retries come every few calls)
        await manager.step(session, ProbeAction(label="fast"))
        if session.calls.inline:
            break
    assert session.calls.inline  # proved fast: on the loop
    await manager.reset(session, level=3)
    seen.clear()
    await manager.step(session, ProbeAction(label="after reset"))
    assert seen and seen[0] != threading.get_ident()  # measured in the pool first
    await manager.shutdown()


def test_one_hiccup_does_not_send_a_fast_session_to_the_pool() -> None:
    rule, calls = Adaptive(), CallStats()
    fed(rule, calls, FAST, times=30)
    fed(rule, calls, 0.03)  # one preempted call: it counts as at most spike_cap budgets
    assert calls.inline


def test_a_pooled_session_is_retried_inline_and_comes_back_when_fast_there() -> None:
    rule, calls = Adaptive(), CallStats()
    for _ in range(3):  # 3 ms in a worker (waiting for the GIL): the pool
        rule.learn(calls, 0.003, inline=False)
    assert not calls.inline
    retries = 0
    for _ in range(Tuning.retry_first + 1):
        if rule.retry_due(calls):
            retries += 1
            rule.learn(calls, FAST, inline=True)  # on the loop it is fast
        else:
            rule.learn(calls, 0.003, inline=False)
    assert retries == 1 and calls.inline


def test_retries_that_miss_come_twice_as_rarely() -> None:
    rule, calls = Adaptive(), CallStats()
    for _ in range(3):
        rule.learn(calls, 0.003, inline=False)
    gaps, since = [], 0
    for _ in range(300):
        since += 1
        if rule.retry_due(calls):
            gaps.append(since)
            since = 0
            rule.learn(calls, 0.005, inline=True)  # slow on the loop too: a miss
        else:
            rule.learn(calls, 0.003, inline=False)
    assert gaps[:3] == [32, 64, 128] and not calls.inline


async def test_the_plain_scheduler_runs_every_call_in_a_worker_thread() -> None:
    seen: set[int] = set()

    class Probe(ProbeEnvironment):
        def step(self, action):
            seen.add(threading.get_ident())
            return super().step(action)

    manager = SessionManager(Probe, idle_timeout_s=None, scheduler=WorkerThreads())
    session = await manager.open()
    await manager.reset(session)
    for _ in range(50):
        await manager.step(session, ProbeAction(label="fast"))
    assert threading.get_ident() not in seen and seen  # never on the event loop
    assert SessionManager(Probe, inline_budget_s=0).scheduler.__class__ is WorkerThreads
    await manager.shutdown()
