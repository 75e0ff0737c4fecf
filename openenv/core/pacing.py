"""When to poll for a message instead of sleeping until it comes: one rule for both ends.

A client waiting for a fast step's answer, and a server waiting for the next request of a
client in a tight loop, each wait tens or hundreds of microseconds. Sleeping in the kernel for
that long is costly on a virtual machine: a CPU that goes idle is halted, takes tens of
microseconds to wake, and the sender pays for the wake-up too. Polling keeps the CPU awake.

The rule (:func:`spin_budget`, :func:`blend`): poll only while the recent waits, averaged, were
shorter than a limit, and never for longer than twice that average; a wait much longer than
the limit counts as four times the limit, so one slow step does not stop polling for long.
At most one thread or task of a process polls at a time (:data:`SPINNING`); the others sleep.

``OPENENV_CLIENT_SPIN_US`` (default 2000) sets the clients' limit, ``OPENENV_SERVER_SPIN_US``
(default 1000) the server's; ``0`` turns polling off.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable


def limit_s(variable: str, default_us: float) -> float:
    """The polling limit in seconds from ``$variable`` (microseconds), else ``default_us``."""
    raw = os.environ.get(variable, "").strip()
    try:
        return max(float(raw), 0.0) / 1e6 if raw else default_us / 1e6
    except ValueError:
        raise ValueError(f"${variable} must be a number of microseconds, got {raw!r}") from None


CLIENT_SPIN_S = limit_s("OPENENV_CLIENT_SPIN_US", 2000)
SERVER_SPIN_S = limit_s("OPENENV_SERVER_SPIN_US", 1000)
SPINNING = threading.Lock()  # held by the one thread or task of this process that is polling


def spin_budget(recent_s: float | None, limit: float) -> float:
    """Seconds to poll for the next message, given the recent average wait: 0 unless fast."""
    if not limit or recent_s is None or recent_s > limit:
        return 0.0
    return min(limit, 2 * recent_s)


def blend(recent_s: float | None, took_s: float, limit: float) -> float:
    """The recent average wait once a wait of ``took_s`` is counted (capped at 4 x ``limit``)."""
    took_s = min(took_s, 4 * limit) if limit else took_s
    return took_s if recent_s is None else 0.8 * recent_s + 0.2 * took_s


async def keep_turning(until: float, arrived: Callable[[], object]) -> None:
    """Keep the running event loop turning, without sleeping, until ``arrived()`` is true or
    ``until`` (``time.perf_counter``); at once when another thread or task is polling.

    Each turn is ``asyncio.sleep(0)``: the loop polls its sockets without a timeout and runs
    every other ready task, so nothing else waits while one call polls.
    """
    if time.perf_counter() >= until or not SPINNING.acquire(blocking=False):
        return
    try:
        while not arrived() and time.perf_counter() < until:
            await asyncio.sleep(0)
    finally:
        SPINNING.release()
