"""The blocking client's connection (``.sync()``): the caller's thread does the I/O.

``EnvClient.sync()`` used to run the async client on a private event-loop thread, so every call
crossed threads twice and woke an idle thread twice; on a virtual machine each wake-up of an
idle CPU costs tens of microseconds, more than a fast environment's step. Here the calling
thread writes the request and reads the answer on the socket itself, with the protocol
bookkeeping of :mod:`openenv.client.connections`.

While a connection sits idle between calls (a notebook cell, a debugger), one daemon thread
shared by all of them reads it every :data:`KEEPALIVE_S` seconds, so the server's pings are
answered and the session survives the pause; it also pings a server that went silent, as a call
does (see :mod:`openenv.client.connections`), so the first call after a server stopped
answering fails at once. That thread never touches a connection while a call is using it.

The connection's coroutines never suspend (the I/O is blocking), so :func:`run_now` runs the
async client's own methods on it without an event loop.

Waiting for an answer that comes quickly (a fast environment's step), the thread polls the
socket instead of sleeping in the kernel, as the connection's :class:`~openenv.pacing.Pacer` says
(only while recent answers were fast, one polling thread or task per process); not on TLS
connections. ``OPENENV_CLIENT_SPIN_US=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import threading
import time
import weakref
from collections.abc import Coroutine
from typing import Any, TypeVar

from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.uri import parse_uri

from openenv import pacing
from openenv.client.connections import CLOSE_WAIT_S, SansIOConnection

KEEPALIVE_S = 5.0  # servers ping every 20 s and wait 20 s for the answer (openenv serve)
RECV_BYTES = 256 * 1024

_T = TypeVar("_T")


def run_now(coro: Coroutine[Any, Any, _T]) -> _T:
    """The result of a coroutine that finishes without suspending (blocking I/O inside)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("this call needs an event loop; use the async client for it")


class BlockingConnection(SansIOConnection):
    """One WebSocket connection used from one thread at a time; see the module docstring."""

    def __init__(self, sock: socket.socket, protocol: ClientProtocol) -> None:
        super().__init__(protocol)
        self.sock = sock
        self._io = threading.Lock()  # held by a call, or by the keepalive thread
        self.pacer = pacing.client_pacer()  # how long a call polls for its answer

    @classmethod
    def open(
        cls, url: str, *, headers: dict[str, str], max_size: int | None, timeout: float
    ) -> BlockingConnection:
        """Connect (TCP, TLS for ``wss://``, the WebSocket handshake) within ``timeout`` s.

        Raises ``OSError`` (``TimeoutError`` included) or ``websockets.InvalidHandshake``.
        """
        uri = parse_uri(url)
        deadline = time.monotonic() + timeout
        sock = socket.create_connection((uri.host, uri.port), timeout=timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if uri.secure:
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=uri.host)
            conn = cls(sock, cls._protocol(url, headers, max_size))
            conn._flush()
            while (response := conn._response()) is None:
                conn._read(deadline, handshake=True)
            conn.headers = response.headers
        except BaseException:
            sock.close()
            raise
        KEEPALIVE.add(conn)
        return conn

    # -- the interface EnvClient uses ------------------------------------------------------

    async def request(self, text: str, request_id: str | None, timeout: float) -> dict[str, Any]:
        """Send ``text``; return the answer to ``request_id`` (see :func:`answers`).

        Raises ``TimeoutError``, :class:`~openenv.client.connections.Unresponsive`, or
        ``ConnectionClosed`` once no message is left.
        """
        with self._io:
            self._raise_if_lost()
            self._queue(text)
            self._flush()
            sent = self.pacer.clock()
            budget = self._spin_budget()
            poll_until = sent + budget if budget else 0.0
            deadline = time.monotonic() + timeout
            while (reply := self._answer(request_id)) is None:
                check = time.monotonic() + self._alive_check_in()
                try:
                    self._read(min(deadline, check), poll_until=poll_until)
                except TimeoutError:
                    if time.monotonic() >= deadline:
                        raise
                self._check_alive()
                self._flush()
            self.pacer.waited(self.pacer.clock() - sent)
            return reply

    async def close(self, goodbye: str | None = None) -> None:
        """Say ``goodbye`` (a last message), close the WebSocket, then the socket."""
        with self._io:
            KEEPALIVE.discard(self)
            try:
                self._queue(goodbye, close=True)
                self._flush()
                deadline = time.monotonic() + CLOSE_WAIT_S
                while not self._finished():
                    self._read(deadline)
            except (OSError, ConnectionClosed):
                pass  # closing anyway
            finally:
                self.sock.close()

    def abort(self) -> None:
        """Drop the connection at once (the server is not answering)."""
        KEEPALIVE.discard(self)
        with contextlib.suppress(OSError):
            self.sock.close()

    # -- keepalive ---------------------------------------------------------------------------

    def pump_idle(self) -> bool:
        """Read what arrived while no call was running (answers pings); False once closed."""
        if not self._io.acquire(blocking=False):
            return True  # a call is reading: it answers pings itself
        try:
            if self.sock.fileno() < 0:
                return False  # closed
            while not self._eof and self._readable():
                self._read(time.monotonic())
            if not self._idle_alive():  # a silent server is pinged, as during a call
                self.sock.close()
                return False
            self._flush()
            return not self._finished()
        except (OSError, ConnectionClosed):
            return False
        finally:
            self._io.release()

    # -- internals ---------------------------------------------------------------------------

    def _spin_budget(self) -> float:
        """How long to poll for the next answer: 0 unless recent answers were fast."""
        if isinstance(self.sock, ssl.SSLSocket):
            return 0.0
        return self.pacer.budget()

    def _poll(self, until: float) -> bytes | None:
        """Poll the socket until ``until`` (the pacer's clock); None when nothing came (or another
        thread is polling)."""
        clock = self.pacer.clock
        if clock() >= until or not pacing.SPINNING.acquire(blocking=False):
            return None
        try:
            self.sock.settimeout(0.0)
            while True:
                try:
                    return self.sock.recv(RECV_BYTES)
                except BlockingIOError:
                    if clock() >= until:
                        return None
        finally:
            pacing.SPINNING.release()

    def _readable(self) -> bool:
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        return bool(select.select([self.sock], [], [], 0)[0])

    def _read(self, deadline: float, *, handshake: bool = False, poll_until: float = 0.0) -> None:
        """One read from the socket into the protocol; pongs and close replies go out.

        Until ``poll_until`` (the pacer's clock) the socket is polled rather than waited on.
        """
        if self._eof or self.sock.fileno() < 0:
            raise self._closed()
        remaining = deadline - time.monotonic()
        if remaining <= 0 and not self._readable():
            raise TimeoutError("no data before the deadline")
        try:
            data = self._poll(poll_until) if poll_until else None
            if data is None:
                self.sock.settimeout(max(remaining, 0.0))
                data = self.sock.recv(RECV_BYTES)
        except (BlockingIOError, ssl.SSLWantReadError):
            return  # readable, but not a whole TLS record yet
        except (ConnectionResetError, BrokenPipeError):
            data = b""
        if data:
            self._heard()
            self.protocol.receive_data(data)
        else:
            self._eof = True
            self.protocol.receive_eof()
        self._flush()
        if not handshake:
            self._collect()
            if self._finished() and not self._texts:
                KEEPALIVE.discard(self)
                self.sock.close()  # nothing more can come: free the socket now
                raise self._closed()

    def _flush(self) -> None:
        for data in self.protocol.data_to_send():
            try:
                if data:
                    self.sock.sendall(data)
                else:  # the protocol is done writing: half-close
                    self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                self._eof = True
                with contextlib.suppress(Exception):
                    self.protocol.receive_eof()
                return


class _Keepalive:
    """The one daemon thread that reads idle blocking connections (see the module docstring)."""

    def __init__(self) -> None:
        self._conns: weakref.WeakSet[BlockingConnection] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, conn: BlockingConnection) -> None:
        with self._lock:
            self._conns.add(conn)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="openenv-keepalive", daemon=True
                )
                self._thread.start()

    def discard(self, conn: BlockingConnection) -> None:
        with self._lock:
            self._conns.discard(conn)

    def _run(self) -> None:
        while True:
            time.sleep(KEEPALIVE_S)
            with self._lock:
                conns = list(self._conns)
                if not conns:
                    self._thread = None
                    return
            for conn in conns:
                if not conn.pump_idle():
                    self.discard(conn)


KEEPALIVE = _Keepalive()
