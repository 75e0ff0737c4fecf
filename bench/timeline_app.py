"""The Atari server as ``bench/bench_timeline.py`` measures it: the real app, plus time stamps.

Stamps are ``time.perf_counter()`` readings (CLOCK_MONOTONIC on Linux, one clock for every
process, so they compare with the client's): when a /ws frame reaches uvicorn's protocol
(``in``), when ``env.step`` starts and ends (``start``, ``end``) and when the answer is handed
to the socket (``out``). ``GET /_bench/timeline`` returns them and starts afresh. Serve with
``uvicorn timeline_app:app`` from ``bench/``; nothing else imports this module.
"""

from __future__ import annotations

import time
from typing import Any

from atari_env.server.app import app
from atari_env.server.environment import AtariEnvironment

from openenv.server.lean_ws import LeanWebSocketProtocol

STAMPS: dict[str, list[float]] = {"in": [], "start": [], "end": [], "out": []}
clock = time.perf_counter


class _StampedTransport:
    """The connection's transport, stamping each write (an answer leaving the server)."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def write(self, data: bytes) -> None:
        STAMPS["out"].append(clock())
        self._transport.write(data)


_received = LeanWebSocketProtocol.data_received
_made = LeanWebSocketProtocol.connection_made
_step = AtariEnvironment.step


def _data_received(self: Any, data: bytes) -> None:
    STAMPS["in"].append(clock())
    _received(self, data)


def _connection_made(self: Any, transport: Any) -> None:
    _made(self, _StampedTransport(transport))


def _timed_step(self: AtariEnvironment, action: Any) -> Any:
    STAMPS["start"].append(clock())
    try:
        return _step(self, action)
    finally:
        STAMPS["end"].append(clock())


LeanWebSocketProtocol.data_received = _data_received  # type: ignore[method-assign]
LeanWebSocketProtocol.connection_made = _connection_made  # type: ignore[method-assign]
AtariEnvironment.step = _timed_step  # type: ignore[method-assign]


@app.get("/_bench/timeline", include_in_schema=False)
async def timeline() -> dict[str, list[float]]:
    taken = {name: list(stamps) for name, stamps in STAMPS.items()}
    for stamps in STAMPS.values():
        stamps.clear()
    return taken
