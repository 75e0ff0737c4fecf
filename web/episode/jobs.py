"""Video exports of one server, bounded: encoding costs CPU, so at most ``running`` encode at a
time, at most ``waiting`` more wait their turn, and each tab, and each client address, has at
most one in flight (a visitor with many tabs cannot fill the queue for everyone). A
request beyond that is refused with :class:`Busy` (HTTP 429 and a Retry-After), never queued
without end. Each tab's encode reports its progress (frames done of frames in all), which the
page polls to draw its progress bar.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openenv.web.episode.video import Progress

RETRY_AFTER_S = 5


class Busy(RuntimeError):
    """No room for another export now; the message says why."""


@dataclass
class Job:
    state: str = "waiting"  # then "encoding"
    done: int = 0
    total: int = 0


class Encoder:
    """Runs exports in worker threads, ``running`` at a time (see the module docstring)."""

    def __init__(self, running: int = 1, waiting: int = 4) -> None:
        self._slots = asyncio.Semaphore(running)
        self._limit = running + waiting
        self._jobs: dict[str, Job] = {}
        self._clients: set[str] = set()  # the clients with an export in flight

    def progress(self, key: str) -> dict[str, Any]:
        """``{"state": "idle" | "waiting" | "encoding", "done", "total"}`` of ``key``'s export."""
        job = self._jobs.get(key)
        if job is None:
            return {"state": "idle", "done": 0, "total": 0}
        return {"state": job.state, "done": job.done, "total": job.total}

    async def run(
        self, key: str, encode: Callable[[Progress], bytes | None], client: str | None = None
    ) -> bytes | None:
        """``encode(progress)`` in a worker thread once a slot is free; :class:`Busy` when
        ``key`` already exports, ``client`` (an address; ``None``: counted against nobody)
        has another export in flight, or too many exports wait."""
        if key in self._jobs:
            raise Busy("this tab's video is being made already: wait for it to finish")
        if client is not None and client in self._clients:
            raise Busy("another of your videos is being made: wait for it to finish")
        if len(self._jobs) >= self._limit:
            raise Busy("the server is making other videos: try again in a few seconds")
        job = self._jobs[key] = Job()
        if client is not None:
            self._clients.add(client)

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        try:
            async with self._slots:
                job.state = "encoding"
                return await asyncio.to_thread(encode, progress)
        finally:
            del self._jobs[key]
            self._clients.discard(client or "")
