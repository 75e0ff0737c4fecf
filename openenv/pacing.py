"""Speed machinery: when to poll for a message instead of sleeping until it comes.

A client waiting for a fast step's answer, and a server waiting for the next request of a
client in a tight loop, each wait tens or hundreds of microseconds. Sleeping in the kernel for
that long is costly on a virtual machine: a CPU that goes idle is halted, takes tens of
microseconds to wake, and the sender pays for the wake-up too. Polling keeps the CPU awake.

This is the one seam for it. Each connection (and the server's inbox of each connection) holds
a :class:`Pacer`, which says how long to poll before the next wait (:meth:`Pacer.budget`) and
learns from each wait (:meth:`Pacer.waited`); the code that waits does nothing else about it.
The plain mode is a pacer whose limit is 0 (:data:`PLAIN`): it never polls, and everything
works the same, only slower on such machines.

The rule: poll only while the recent waits, averaged, were shorter than the limit, and never for
longer than twice that average; a wait much longer than the limit counts as four times the
limit, so one slow step does not stop polling for long. At most one thread or task of a process
polls at a time (:data:`SPINNING`); the others sleep.

``OPENENV_CLIENT_SPIN_US`` (default 2000) sets the clients' limit, ``OPENENV_SERVER_SPIN_US``
(default 1000) the server's; ``0`` turns polling off (the plain mode).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable

CLIENT_VAR, SERVER_VAR = "OPENENV_CLIENT_SPIN_US", "OPENENV_SERVER_SPIN_US"
Clock = Callable[[], float]


def limit_s(variable: str, default_us: float) -> float:
    """The polling limit in seconds from ``$variable`` (microseconds), else ``default_us``."""
    raw = os.environ.get(variable, "").strip()
    try:
        return max(float(raw), 0.0) / 1e6 if raw else default_us / 1e6
    except ValueError:
        raise ValueError(f"${variable} must be a number of microseconds, got {raw!r}") from None


CLIENT_SPIN_S = limit_s(CLIENT_VAR, 2000)
SERVER_SPIN_S = limit_s(SERVER_VAR, 1000)
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


class Pacer:
    """The polling rule for one stream of messages: its limit, its recent average wait, and the
    clock its waits are timed on (``time.perf_counter``; tests inject their own)."""

    __slots__ = ("clock", "limit", "recent")

    def __init__(
        self, limit: float, recent: float | None = None, clock: Clock = time.perf_counter
    ) -> None:
        self.limit = limit
        self.recent = recent  # seconds; None until a wait was seen
        self.clock = clock

    def budget(self) -> float:
        """Seconds to poll before the next wait (0: sleep at once)."""
        return spin_budget(self.recent, self.limit)

    def waited(self, took_s: float) -> None:
        """Count a wait that took ``took_s`` seconds."""
        if self.limit:
            self.recent = blend(self.recent, took_s, self.limit)


PLAIN = Pacer(0.0)  # never polls; shared, since it learns nothing


def client_pacer() -> Pacer:
    """A pacer for one client connection, or :data:`PLAIN` when client polling is off."""
    return Pacer(CLIENT_SPIN_S) if CLIENT_SPIN_S else PLAIN


def server_pacer() -> Pacer:
    """A pacer for one server connection's inbox, or :data:`PLAIN` when polling is off."""
    return Pacer(SERVER_SPIN_S) if SERVER_SPIN_S else PLAIN


async def keep_turning(
    until: float, arrived: Callable[[], object], clock: Clock = time.perf_counter
) -> None:
    """Keep the running event loop turning, without sleeping, until ``arrived()`` is true or
    ``until`` (on ``clock``); at once when another thread or task is polling.

    Each turn is ``asyncio.sleep(0)``: the loop polls its sockets without a timeout and runs
    every other ready task, so nothing else waits while one call polls.
    """
    if clock() >= until or not SPINNING.acquire(blocking=False):
        return
    try:
        while not arrived() and clock() < until:
            await asyncio.sleep(0)
    finally:
        SPINNING.release()
