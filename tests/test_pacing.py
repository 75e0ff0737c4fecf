"""openenv.pacing: when a client or a server polls for the next message instead of sleeping.

The rule is tested on its numbers and on an injected clock: nothing here depends on how fast the
machine running the tests is."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from openenv import pacing

LIMIT = 0.002


class FrozenClock:
    """A clock that moves only by ``step`` per reading (0: never)."""

    def __init__(self, step: float = 0.0) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


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

    clock = FrozenClock()  # no deadline can pass: only the arrival stops it
    task = asyncio.ensure_future(other_task())
    await pacing.keep_turning(5.0, lambda: inbox, clock)
    assert inbox == ["message"] and ticks == [0, 1, 2, 3, 4]
    await task


async def test_polling_stops_at_its_deadline_and_one_poller_at_a_time() -> None:
    clock = FrozenClock(step=0.001)  # each reading 1 ms later
    await pacing.keep_turning(0.01, lambda: False, clock)
    assert clock.now == pytest.approx(0.01, abs=0.0015)  # it stopped at the deadline
    turns = []
    with pacing.SPINNING:  # another thread or task is polling: return at once, unturned
        await pacing.keep_turning(time.perf_counter() + 5.0, lambda: turns.append(1))
    assert turns == []
    assert not pacing.SPINNING.locked()


def test_the_limits_come_from_the_environment_and_a_bad_one_is_named() -> None:
    code = "from openenv import pacing; print(pacing.CLIENT_SPIN_S, pacing.SERVER_SPIN_S)"
    env = {"OPENENV_CLIENT_SPIN_US": "0", "OPENENV_SERVER_SPIN_US": "250", "PATH": "/usr/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["0.0", "0.00025"]
    env["OPENENV_SERVER_SPIN_US"] = "fast"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "$OPENENV_SERVER_SPIN_US must be a number of microseconds, got 'fast'" in out.stderr


def test_a_pacer_learns_from_its_waits_and_the_plain_one_never_polls() -> None:
    pacer = pacing.Pacer(LIMIT)
    assert pacer.budget() == 0.0  # nothing known yet
    for _ in range(5):
        pacer.waited(0.0001)
    assert 0 < pacer.budget() <= LIMIT
    for _ in range(5):
        pacer.waited(0.05)  # slow answers: sleep
    assert pacer.budget() == 0.0
    for _ in range(20):
        pacing.PLAIN.waited(0.0001)
    assert pacing.PLAIN.budget() == 0.0 and pacing.PLAIN.recent is None


def test_polling_off_gives_plain_pacers_to_every_connection() -> None:
    code = (
        "from openenv import pacing; "
        "print(pacing.client_pacer() is pacing.PLAIN, pacing.server_pacer() is pacing.PLAIN)"
    )
    env = {"OPENENV_CLIENT_SPIN_US": "0", "OPENENV_SERVER_SPIN_US": "0", "PATH": "/usr/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["True", "True"], out.stderr
