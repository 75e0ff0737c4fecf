"""The client's WebSocket connections: ``websockets``' sans-I/O protocol on a plain socket.

:class:`~websockets.client.ClientProtocol` does the handshake and the framing; the drivers only
move bytes, each the cheapest way for its caller:

- :class:`AsyncConnection` (``async with Env(...)``) is an :class:`asyncio.Protocol`: bytes go
  from the socket to the protocol in ``data_received``, which also answers pings, and a call
  waits on one future. ``websockets``' own asyncio client adds a reader task, a message queue
  and their wake-ups to every message. While recent answers were fast, a call first keeps the
  event loop turning (``asyncio.sleep(0)``, other tasks run meanwhile) instead of letting it
  sleep, as the connection's :class:`~openenv.pacing.Pacer` says.
- :class:`~openenv.client.blocking.BlockingConnection` (``.sync()``): the calling thread does
  the I/O itself (see that module).
- :class:`ProxiedConnection`: ``websockets``' own asyncio client, for connections through a
  proxy (it supports every kind); ``EnvClient`` decides with :func:`proxied`.

All offer ``await request(text, request_id, timeout)`` and ``await close(goodbye)``. What they
share is here: :class:`SansIOConnection` (handshake, fragmented messages, answers matched to calls,
liveness), :func:`answers` and :func:`redirect`.

Liveness: while a call waits, a connection silent for :data:`PING_S` seconds sends a ping, and
one whose ping goes unanswered for :data:`PING_S` more raises :class:`Unresponsive` (a server
that was paused, crashed without closing TCP, or lost its network), as ``websockets``' own
client does with its default 20 s interval and timeout. The server answers pings even while
an environment's step runs in a worker. Between calls the same check runs in the background
(a loop timer here, the keepalive thread for ``.sync()``), and the next call raises the
:class:`Unresponsive` it found at once.

(Over 400 lines: the protocol bookkeeping both drivers share and the asyncio driver sit together
so the liveness and answer-matching rules are written once.)
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
import urllib.parse
from typing import TYPE_CHECKING, Any, cast

from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from openenv import pacing
from openenv.core.serialization import load_json

if TYPE_CHECKING:
    from websockets.typing import BytesLike

CLOSE_WAIT_S = 2.0
PING_S = 20.0  # see the module docstring


class Unresponsive(ConnectionError):
    """The server stopped answering: a ping went unanswered for :data:`PING_S` seconds."""


REDIRECT_CODES = frozenset({300, 301, 302, 303, 307, 308})
MAX_REDIRECTS = 10


def redirect(url: str, headers: dict[str, str], exc: Exception) -> tuple[str, dict[str, str]]:
    """Where a handshake answered with a redirect goes next: the URL and the headers to send.

    ``websockets``' rules: no redirect from ``wss://`` to ``ws://``, and credentials
    (``Authorization``, ``Cookie``) are not sent to another origin. Raises ``exc`` when it is
    not a redirect that can be followed.
    """
    if not isinstance(exc, InvalidStatus) or exc.response.status_code not in REDIRECT_CODES:
        raise exc
    location = exc.response.headers.get("Location")
    if not location:
        raise exc
    target = urllib.parse.urljoin(url, location)
    old, new = parse_uri(url), parse_uri(target)
    if old.secure and not new.secure:
        raise InvalidHandshake(f"refusing a redirect from {url} to the insecure {target}")
    if (old.secure, old.host, old.port) != (new.secure, new.host, new.port):
        secret = {"authorization", "cookie", "proxy-authorization"}
        headers = {k: v for k, v in headers.items() if k.lower() not in secret}
    return target, headers


def answers(reply: dict[str, Any], request_id: str | None) -> bool:
    """Whether ``reply`` answers the call ``request_id`` (None: the server does not correlate).

    Anything else is the late answer of a call that timed out, to be dropped."""
    return request_id is None or reply.get("request_id") in (None, request_id)


def proxied(url: str) -> bool:
    """Whether ``websockets`` would connect to ``url`` through a proxy (from the environment)."""
    try:
        from websockets.proxy import get_proxy  # websockets >= 15
    except ImportError:
        return False
    return get_proxy(parse_uri(url)) is not None


class SansIOConnection:
    """What both connections share: the protocol, and the messages it delivered."""

    def __init__(self, protocol: ClientProtocol) -> None:
        self.protocol = protocol
        self.headers: Any = {}  # the handshake response's headers
        self._texts: list[bytes] = []  # text messages (UTF-8) read but not yet claimed by a call
        self._parts: list[BytesLike] | None = None  # a fragmented message being assembled
        self._eof = False
        self._heard_at = time.monotonic()  # when the server last sent anything
        self._pinged_at: float | None = None  # an unanswered ping of ours, sent then
        self._lost: Unresponsive | None = None  # found unresponsive between calls

    @staticmethod
    def _protocol(url: str, headers: dict[str, str], max_size: int | None) -> ClientProtocol:
        """A protocol for ``url`` whose handshake request (with ``headers``) is ready to go."""
        protocol = ClientProtocol(parse_uri(url), max_size=max_size)
        request = protocol.connect()
        for name, value in headers.items():
            request.headers[name] = value
        protocol.send_request(request)
        return protocol

    def _response(self) -> Response | None:
        """The handshake's answer once it arrived (raises if the server refused)."""
        events = self.protocol.events_received()
        for i, event in enumerate(events):
            if isinstance(event, Response):
                if self.protocol.handshake_exc is not None:
                    raise self.protocol.handshake_exc
                self._collect(events[i + 1 :])  # frames that came in with the response
                return event
        if self._eof:
            raise ConnectionError("the server closed the connection during the handshake")
        return None

    def _collect(self, frames: list[Any] | None = None) -> None:
        # After the handshake's Response, every event the protocol delivers is a Frame.
        events = self.protocol.events_received() if frames is None else frames
        for frame in cast(list[Frame], events):
            if frame.opcode is Opcode.TEXT:
                self._parts = [frame.data]
            elif frame.opcode is Opcode.CONT and self._parts is not None:
                self._parts.append(frame.data)
            else:
                continue  # pings, pongs and close frames are the protocol's business
            if frame.fin:
                self._texts.append(b"".join(self._parts))
                self._parts = None

    def _answer(self, request_id: str | None) -> dict[str, Any] | None:
        """The answer to ``request_id`` among the messages read (any answer if it is None).

        A message left over from a call that timed out is recognised by its ``request_id``
        and dropped."""
        while self._texts:
            reply = load_json(self._texts.pop(0))
            if answers(reply, request_id):
                return reply
        return None

    def _heard(self) -> None:
        """Something came from the server: it is alive."""
        self._heard_at, self._pinged_at = time.monotonic(), None

    def _alive_check_in(self) -> float:
        """Seconds until :meth:`_check_alive` has something to do."""
        since = self._heard_at if self._pinged_at is None else self._pinged_at
        return max(0.0, since + PING_S - time.monotonic())

    def _check_alive(self) -> None:
        """Ping a server silent for PING_S (the driver flushes); give up on one whose ping went
        unanswered for PING_S."""
        now = time.monotonic()
        if self._pinged_at is None:
            if now - self._heard_at >= PING_S and self.protocol.state is State.OPEN:
                self.protocol.send_ping(b"openenv")
                self._pinged_at = now
        elif now - self._pinged_at >= PING_S:
            raise Unresponsive(
                f"the server stopped answering: no pong within {PING_S:g} s of a ping after "
                f"{PING_S:g} s of silence (paused, crashed, or unreachable); the session is lost, "
                "the next call opens a new one"
            )

    def _idle_alive(self) -> bool:
        """The liveness check between calls (the driver flushes, and closes when False): once
        the server is found unresponsive, the next call raises it at once."""
        try:
            self._check_alive()
        except Unresponsive as exc:
            self._lost = exc
            return False
        return True

    def _raise_if_lost(self) -> None:
        if self._lost is not None:
            raise self._lost

    def _queue(self, text: str | None, *, close: bool = False) -> None:
        """Queue ``text`` (and a close frame) for the driver's next flush, if still open."""
        if self.protocol.state is State.OPEN:
            if text is not None:
                self.protocol.send_text(text.encode())
            if close:
                self.protocol.send_close()

    def _finished(self) -> bool:
        return self._eof or self.protocol.state is State.CLOSED

    @property
    def closed(self) -> bool:
        """The server closed the connection (or it dropped) and no message is left to read:
        the client opens a new one for its next call."""
        if self._lost is not None or self._texts:
            return False  # the next call reads what is left, or says the server went silent
        return self._finished() or self.protocol.state is State.CLOSING

    def _closed(self) -> ConnectionClosed:
        if self.protocol.state is State.CLOSED:
            return self.protocol.close_exc
        return ConnectionClosed(self.protocol.close_rcvd, self.protocol.close_sent)


class AsyncConnection(asyncio.Protocol, SansIOConnection):
    """One WebSocket connection on the running event loop; see the module docstring."""

    def __init__(self, protocol: ClientProtocol) -> None:
        SansIOConnection.__init__(self, protocol)
        self.transport: asyncio.Transport | None = None
        self._waiter: asyncio.Future[None] | None = None
        self.pacer = pacing.client_pacer()  # how long a call polls for its answer
        self._calling = False  # a request is running (it checks liveness itself)
        self._idle: asyncio.TimerHandle | None = None  # the next liveness check between calls

    @classmethod
    async def open(
        cls, url: str, *, headers: dict[str, str], max_size: int | None, timeout: float
    ) -> AsyncConnection:
        """Connect (TCP, TLS for ``wss://``, the WebSocket handshake) within ``timeout`` s.

        Raises ``OSError`` (``TimeoutError`` included) or ``websockets.InvalidHandshake``.
        """
        uri = parse_uri(url)
        conn = cls(cls._protocol(url, headers, max_size))
        tls = ssl.create_default_context() if uri.secure else None
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                await loop.create_connection(lambda: conn, uri.host, uri.port, ssl=tls)
                conn._flush()
                while (response := conn._response()) is None:
                    await conn._wait()
        except BaseException:
            if conn.transport is not None:
                conn.transport.close()
            raise
        conn.headers = response.headers
        conn._watch_idle()
        return conn

    async def request(self, text: str, request_id: str | None, timeout: float) -> dict[str, Any]:
        """Send ``text``; return the answer to ``request_id`` (see :func:`answers`).

        Raises ``TimeoutError``, :class:`Unresponsive`, or ``ConnectionClosed`` once no message
        is left.
        """
        self._raise_if_lost()
        self._calling = True
        try:
            return await self._request(text, request_id, timeout)
        finally:
            self._calling = False

    async def _request(self, text: str, request_id: str | None, timeout: float) -> dict[str, Any]:
        self._queue(text)
        self._flush()
        sent = self.pacer.clock()
        async with asyncio.timeout(timeout):
            until = sent + self.pacer.budget()
            await pacing.keep_turning(until, self._arrived, self.pacer.clock)
            while True:
                self._collect()
                reply = self._answer(request_id)
                if reply is not None:
                    took = self.pacer.clock() - sent
                    self.pacer.waited(took)
                    return reply
                if self._finished():
                    raise self._closed()
                await self._wait(self._alive_check_in())
                self._check_alive()
                self._flush()

    async def close(self, goodbye: str | None = None) -> None:
        """Say ``goodbye`` (a last message), close the WebSocket, then the socket."""
        if self._idle is not None:
            self._idle.cancel()
        try:
            self._queue(goodbye, close=True)
            self._flush()
            async with asyncio.timeout(CLOSE_WAIT_S):
                while not self._finished():
                    await self._wait()
        except TimeoutError:
            pass  # closing anyway
        finally:
            if self.transport is not None:
                self.transport.close()

    # -- asyncio.Protocol --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self._heard()
        self.protocol.receive_data(data)
        self._flush()  # pongs and close replies go out at once
        self._wake()

    def eof_received(self) -> None:
        self._end()

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    # -- internals ---------------------------------------------------------------------------

    def _end(self) -> None:
        if not self._eof:
            self._eof = True
            self.protocol.receive_eof()
        self._wake()

    def _flush(self) -> None:
        transport = self.transport
        for data in self.protocol.data_to_send():
            if transport is None or transport.is_closing():
                return
            if data:
                transport.write(data)
            elif transport.can_write_eof():  # the protocol is done writing: half-close
                transport.write_eof()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def abort(self) -> None:
        """Drop the connection at once (the server is not answering)."""
        if self.transport is not None:
            self.transport.abort()

    def _watch_idle(self) -> None:
        """Between calls, ping a server that went silent, as a call does (see the module doc):
        the first call after the server stopped answering then fails at once."""
        self._idle = None
        if self._finished():
            return
        if not self._calling:
            if not self._idle_alive():
                self.abort()
                return
            self._flush()
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(max(self._alive_check_in(), 0.05), self._watch_idle)

    def _arrived(self) -> bool:
        """Whether a message (or the end of the stream) came since the last look."""
        self._collect()
        return bool(self._texts) or self._eof

    async def _wait(self, at_most: float | None = None) -> None:
        """Until the next data, end of stream, ``at_most`` seconds, or the caller's timeout."""
        loop = asyncio.get_running_loop()
        self._waiter = loop.create_future()
        timer = loop.call_later(at_most, self._wake) if at_most is not None else None
        try:
            await self._waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()


class ProxiedConnection:
    """``websockets``' own asyncio client behind the same interface, for connections through a
    proxy (it knows every kind, and follows redirects itself)."""

    __slots__ = ("headers", "ws")

    def __init__(self, ws: Any) -> None:
        self.ws, self.headers = ws, ws.response.headers

    @classmethod
    async def open(
        cls, url: str, *, headers: dict[str, str], max_size: int | None, timeout: float
    ) -> ProxiedConnection:
        import websockets

        ws = await asyncio.wait_for(
            websockets.connect(
                url,
                additional_headers=headers or None,
                max_size=max_size,
                open_timeout=timeout,
                ping_interval=PING_S,
                ping_timeout=PING_S,
                # Messages are small JSON (frames come pre-compressed): per-message deflate
                # would cost CPU and ~tens of KiB of zlib state per session.
                compression=None,
            ),
            timeout=timeout + 1,
        )
        return cls(ws)

    @property
    def closed(self) -> bool:
        from websockets.protocol import State as WsState

        return self.ws.protocol.state in (WsState.CLOSING, WsState.CLOSED)

    async def request(self, text: str, request_id: str | None, timeout: float) -> dict[str, Any]:
        """Send ``text``; the answer to ``request_id`` (a frame queued before a close counts)."""
        with contextlib.suppress(ConnectionClosed):  # read its last words
            await self.ws.send(text)
        async with asyncio.timeout(timeout):
            while True:
                reply = load_json(await self.ws.recv())
                if answers(reply, request_id):
                    return reply

    async def close(self, goodbye: str | None = None) -> None:
        with contextlib.suppress(ConnectionClosed):
            if goodbye is not None:
                await self.ws.send(goodbye)
        await self.ws.close()
