"""openenv.server.lean_ws: the single-reader queue and flag behave like asyncio's, and the
queue polls for the next message of a fast client."""

from __future__ import annotations

import asyncio

import pytest
import uvicorn

from openenv import pacing
from openenv.server.lean_ws import Flag, Inbox, LeanWebSocketProtocol, ws_protocol


async def test_inbox_hands_items_in_order_and_wakes_a_waiting_reader() -> None:
    inbox = Inbox()
    assert inbox.empty()
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not reader.done()
    inbox.put_nowait("connect")
    inbox.put_nowait("receive")
    assert await reader == "connect"
    assert (inbox.qsize(), await inbox.get(), inbox.empty()) == (1, "receive", True)


async def test_a_cancelled_read_loses_nothing() -> None:
    inbox = Inbox()
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    inbox.put_nowait("disconnect")
    assert await inbox.get() == "disconnect"


@pytest.fixture
def polls(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The polling budget (s) of each wait for a message; 0 when the reader slept at once."""
    budgets: list[float] = []
    budget = pacing.Pacer.budget

    def recording(self: pacing.Pacer) -> float:
        budgets.append(budget(self))
        return budgets[-1]

    monkeypatch.setattr(pacing.Pacer, "budget", recording)
    return budgets


class ManualClock:
    """Time that passes only when the test says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def rounds(inbox: Inbox, clock: ManualClock, count: int, gap_s: float) -> None:
    """The server's loop: wait for a message; the client sends the next one ``gap_s`` later."""
    for n in range(count):
        reader = asyncio.ensure_future(inbox.get())
        await asyncio.sleep(0)  # the reader is waiting (polling, or asleep)
        clock.now += gap_s
        inbox.put_nowait(n)
        assert await reader == n


async def test_a_fast_clients_next_message_is_polled_for_and_a_slow_ones_slept_for(polls) -> None:
    clock = ManualClock()
    inbox = Inbox()
    inbox.pacer = pacing.Pacer(0.001, clock=clock)
    await rounds(inbox, clock, 10, 0.00005)  # a client in a tight loop
    assert polls[0] == 0.0 and all(0 < budget <= 0.001 for budget in polls[1:])
    polls.clear()
    await rounds(inbox, clock, 6, 0.05)  # 50 ms between messages: a slow client
    assert polls[-1] == 0.0
    assert sum(budget > 0 for budget in polls) <= 2  # each at most 1 ms, in vain


async def test_flag_releases_every_waiter_and_a_set_flag_does_not_block() -> None:
    flag = Flag()
    waiters = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    flag.set()
    assert await asyncio.gather(*waiters) == [True, True, True]
    assert await flag.wait() is True
    flag.clear()
    assert not flag.is_set()
    late = asyncio.ensure_future(flag.wait())
    await asyncio.sleep(0)
    late.cancel()
    with pytest.raises(asyncio.CancelledError):
        await late
    flag.set()  # a cancelled waiter is not woken, nor kept
    assert flag._waiters is None


def test_uvicorn_loads_the_protocol_by_name_and_by_class() -> None:
    assert ws_protocol() is LeanWebSocketProtocol
    for ws in (LeanWebSocketProtocol, "openenv.server.lean_ws:LeanWebSocketProtocol"):
        config = uvicorn.Config("grid_world_env.server.app:app", ws=ws)
        config.load()
        assert config.ws_protocol_class is LeanWebSocketProtocol


class RecordingTransport(asyncio.Transport):
    """A connection's transport that records what the protocol asks of it."""

    def __init__(self) -> None:
        super().__init__()
        self.paused = self.resumed = 0
        self.written = bytearray()

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name)

    def write(self, data: bytes) -> None:
        self.written += data

    def pause_reading(self) -> None:
        self.paused += 1

    def resume_reading(self) -> None:
        self.resumed += 1

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass


def _frame(text: str) -> bytes:
    """One masked text frame, as a client sends it (the mask is zero: the payload as is)."""
    payload = text.encode()
    return bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


async def test_a_request_answer_client_is_never_paused_and_one_sending_ahead_is() -> None:
    """Reading stops only when messages pile up unread (a client sending ahead of its answers),
    not after every message as uvicorn's protocol does (two system calls a step)."""
    from uvicorn.server import ServerState

    from openenv.server.lean_ws import BACKLOG

    async def app(scope, receive, send) -> None:  # accepts; reads only when the test says
        await receive()
        await send({"type": "websocket.accept"})
        await asyncio.Event().wait()

    config = uvicorn.Config(app, ws=LeanWebSocketProtocol, lifespan="off")
    config.load()
    protocol = LeanWebSocketProtocol(config=config, server_state=ServerState(), app_state={})
    transport = RecordingTransport()
    protocol.connection_made(transport)
    protocol.data_received(
        b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    for _ in range(20):  # the app accepts (a few turns of the loop)
        await asyncio.sleep(0)
    assert b"101" in transport.written
    for n in range(5):  # request, answer taken: never paused
        protocol.data_received(_frame(f"step {n}"))
        assert (await protocol.receive())["text"] == f"step {n}"
    assert (transport.paused, transport.resumed) == (0, 0)
    for n in range(BACKLOG + 1):  # sent ahead: paused once past the backlog
        protocol.data_received(_frame(f"ahead {n}"))
    assert transport.paused == 1
    for n in range(BACKLOG + 1):
        assert (await protocol.receive())["text"] == f"ahead {n}"
    assert transport.resumed == 1
    protocol.connection_lost(None)
