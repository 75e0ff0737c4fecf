"""uvicorn's HTTP protocol with a deadline for each request's headers.

uvicorn closes a keep-alive connection that stays idle between requests, but not one that never
finishes its first request: a client that connects and sends nothing, or sends its headers a
byte at a time, holds a connection (and its memory) for ever. :class:`GuardedH11Protocol` gives
every request ``OPENENV_HEADER_TIMEOUT_S`` seconds (default 10) from its first byte, or from the
connection's start, to complete its headers; past that the connection is closed. A request whose
headers arrived (an upload, a WebSocket handshake, a long-polling stream) is not affected.

``openenv serve``, ``python app.py`` and a Space use it (``openenv.cli.serve.run``); on the
command line: ``uvicorn --http openenv.server.guarded_http:GuardedH11Protocol``.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

TIMEOUT_VAR = "OPENENV_HEADER_TIMEOUT_S"


def header_timeout_s() -> float:
    raw = os.environ.get(TIMEOUT_VAR, "").strip()
    return float(raw) if raw else 10.0


class GuardedH11Protocol(H11Protocol):
    """H11Protocol that closes a connection whose request headers take too long (module doc)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = header_timeout_s()
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._arm()  # a request begun (or not yet): its headers have a deadline
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._header_timer is None and self.header_timeout > 0:
            self._header_timer = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and self.cycle is None:
            self.transport.close()
