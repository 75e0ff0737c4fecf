"""A leaner WebSocket protocol for uvicorn: the same protocol, less memory per idle connection.

uvicorn's sans-I/O ``websockets`` protocol gives every connection an :class:`asyncio.Queue`
(three deques, about 2.3 KiB) for the messages its one reader takes, and an
:class:`asyncio.Event` (one more deque) for write back-pressure. :class:`LeanWebSocketProtocol`
keeps that protocol and swaps those two for single-reader equivalents of a few dozen bytes,
which takes an idle session from about 24 KiB to about 19.5; its inbox also polls for the next
message of a fast client (see :class:`Inbox`).

uvicorn also stops reading a connection as soon as one message waits for the app, and starts
again once the app took it: two ``epoll_ctl`` calls and the selector's bookkeeping for every
message of a client that sends one request and waits for its answer (about a fifth of the
server's CPU per grid-world step). This protocol stops reading only once more than
:data:`BACKLOG` messages wait (a client that sends ahead of its answers), so the bound on what
one connection buffers holds and a request/answer client costs no such calls.
:func:`ws_protocol` returns it
where this uvicorn has the sans-I/O protocol, else ``"auto"`` (uvicorn's own choice).
``openenv.cli.serve.run`` (``openenv serve``, ``python app.py``, a Space) uses it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from openenv import pacing

BACKLOG = 2  # messages waiting for the app before the connection stops being read


class Inbox:
    """``put_nowait`` / ``get`` / ``empty`` of :class:`asyncio.Queue`, for one reader.

    While the reader's recent waits were short (a client stepping in a tight loop), ``get``
    first keeps the event loop turning instead of letting the server's CPU go idle before the
    next message, as its :class:`~openenv.pacing.Pacer` says (``OPENENV_SERVER_SPIN_US``).
    """

    __slots__ = ("_items", "_waiter", "pacer")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None
        self.pacer = pacing.server_pacer()  # how long get() polls before it sleeps

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Any:
        if not self._items:
            waited = self.pacer.clock()
            until = waited + self.pacer.budget()
            await pacing.keep_turning(until, self.qsize, self.pacer.clock)
            while not self._items:
                self._waiter = asyncio.get_running_loop().create_future()
                try:
                    await self._waiter
                finally:
                    self._waiter = None
            took = self.pacer.clock() - waited
            self.pacer.waited(took)
        return self._items.pop(0)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)


class Flag:
    """``set`` / ``clear`` / ``is_set`` / ``wait`` of :class:`asyncio.Event`, without a deque."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[bool]] | None = None

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(True)

    def clear(self) -> None:
        self._set = False

    def is_set(self) -> bool:
        return self._set

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            return await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)


try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # uvicorn < 0.35, or no websockets: uvicorn's own choice
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]

if WebSocketsSansIOProtocol is not None:

    class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
        """uvicorn's sans-I/O protocol with :class:`Inbox` and :class:`Flag` (see module doc).

        On the command line: ``uvicorn --ws openenv.server.lean_ws:LeanWebSocketProtocol``.
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # Swap only what is known: a uvicorn that changed these keeps its own.
            if isinstance(self.queue, asyncio.Queue) and isinstance(self.writable, asyncio.Event):
                self.queue = Inbox()  # type: ignore[assignment]
                writable = Flag()
                if self.writable.is_set():
                    writable.set()
                self.writable = writable  # type: ignore[assignment]

        def send_receive_event_to_app(self) -> None:
            """Queue the message for the app; stop reading only past :data:`BACKLOG`."""
            paused = self.read_paused
            self.read_paused = True  # uvicorn's own pause-after-each-message is skipped...
            try:
                super().send_receive_event_to_app()
            finally:
                self.read_paused = paused
            if not paused and self.queue.qsize() > BACKLOG:  # ...and done here when due
                self.read_paused = True
                self.transport.pause_reading()


def ws_protocol() -> Any:
    """What to pass as uvicorn's ``ws=``: :class:`LeanWebSocketProtocol`, or ``"auto"``."""
    return "auto" if WebSocketsSansIOProtocol is None else LeanWebSocketProtocol
