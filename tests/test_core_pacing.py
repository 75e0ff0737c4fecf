"""openenv.core.pacing: when a client or a server polls for the next message instead of sleeping."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from openenv.core import pacing

LIMIT = 0.002


def test_nothing_is_polled_for_until_waits_are_known_to_be_short() -> None:
    assert pacing.spin_budget(None, LIMIT) == 0.0  # the first wait: nothing known yet
    assert pacing.spin_budget(0.0001, LIMIT) == pytest.approx(0.0002)  # twice the recent wait
    assert pacing.spin_budget(0.0015, LIMIT) == LIMIT  # never past the limit
    assert pacing.spin_budget(0.003, LIMIT) == 0.0  # slow waits: sleep
    assert pacing.spin_budget(0.0001, 0.0) == 0.0  # polling turned off


def test_slow_waits_stop_polling_and_one_slow_wait_does_not_stop_it_for_long() -> None:
    recent = None
    for _ in range(20):
        recent = pacing.blend(recent, 0.0001, LIMIT)
    recent = pacing.blend(recent, 30.0, LIMIT)  # one long pause (a person thinking)
    assert pacing.spin_budget(recent, LIMIT) > 0  # it counts as 4x the limit, not 30 s
    for _ in range(3):
        recent = pacing.blend(recent, 30.0, LIMIT)
    assert pacing.spin_budget(recent, LIMIT) == 0.0
    for _ in range(8):
        recent = pacing.blend(recent, 0.0001, LIMIT)
    assert pacing.spin_budget(recent, LIMIT) > 0  # fast again: polling resumes within steps


async def test_polling_runs_the_other_tasks_and_stops_when_the_message_arrives() -> None:
    ticks, inbox = [], []

    async def other_task() -> None:
        for n in range(5):
            ticks.append(n)
            await asyncio.sleep(0)
        inbox.append("message")

    started = time.perf_counter()
    task = asyncio.ensure_future(other_task())
    await pacing.keep_turning(started + 5.0, lambda: inbox)
    assert inbox == ["message"] and ticks == [0, 1, 2, 3, 4]
    assert time.perf_counter() - started < 1.0  # it stopped on arrival, not at the deadline
    await task


async def test_polling_stops_at_its_deadline_and_one_poller_at_a_time() -> None:
    started = time.perf_counter()
    await pacing.keep_turning(started + 0.01, lambda: False)
    assert 0.01 <= time.perf_counter() - started < 1.0
    turns = []
    with pacing.SPINNING:  # another thread or task is polling: return at once, unturned
        await pacing.keep_turning(time.perf_counter() + 5.0, lambda: turns.append(1))
    assert turns == []
    assert not pacing.SPINNING.locked()


def test_the_limits_come_from_the_environment_and_a_bad_one_is_named() -> None:
    code = "from openenv.core import pacing; print(pacing.CLIENT_SPIN_S, pacing.SERVER_SPIN_S)"
    env = {"OPENENV_CLIENT_SPIN_US": "0", "OPENENV_SERVER_SPIN_US": "250", "PATH": "/usr/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["0.0", "0.00025"]
    env["OPENENV_SERVER_SPIN_US"] = "fast"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "$OPENENV_SERVER_SPIN_US must be a number of microseconds, got 'fast'" in out.stderr
