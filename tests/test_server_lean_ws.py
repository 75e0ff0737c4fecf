"""openenv.server.lean_ws: the single-reader queue and flag behave like asyncio's."""

from __future__ import annotations

import asyncio

import pytest
import uvicorn

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
