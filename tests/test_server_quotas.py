"""Anonymous visitors cannot fill a server: sessions count against their client, a session
nobody used goes sooner, and only clients the server trusts are exempt."""

from __future__ import annotations

import asyncio

import pytest
from wire_apps import ProbeAction, ProbeEnvironment

from openenv.core.errors import CapacityReached
from openenv.server.clients import client_address, quota_owner
from openenv.server.sessions import SessionManager


async def test_a_client_holds_at_most_its_share_and_others_are_not_refused() -> None:
    manager = SessionManager(ProbeEnvironment, per_client=2, idle_timeout_s=None)
    for _ in range(2):
        await manager.open("ws", owner="203.0.113.7")
    with pytest.raises(CapacityReached, match="the most one client may"):
        await manager.open("ws", owner="203.0.113.7")
    await manager.open("ws", owner="198.51.100.2")  # another client
    await manager.open("ws", owner=None)  # a trusted one counts against nobody
    await manager.shutdown()


async def test_an_unused_session_of_an_outside_client_goes_sooner_than_an_idle_one() -> None:
    manager = SessionManager(ProbeEnvironment, idle_timeout_s=30, unused_timeout_s=0.2)
    unused = await manager.open("mcp", owner="203.0.113.7")
    used = await manager.open("ws", owner="203.0.113.7")
    await manager.reset(used)
    local = await manager.open("ws", owner=None)  # a trainer on this machine, not yet reset
    for session in (unused, used, local):
        session.last_active -= 1.0  # a second ago, without waiting a second
    assert await manager.reap() == 1
    assert unused.closed and not used.closed and not local.closed
    await manager.step(used, ProbeAction(label="still here"))
    await manager.shutdown()


def test_the_client_is_the_connecting_address_unless_proxies_are_trusted() -> None:
    headers = [(b"x-forwarded-for", b"6.6.6.6, 203.0.113.7")]  # the first one the client wrote
    assert client_address("10.0.0.1", headers, hops=0) == "10.0.0.1"
    assert client_address("10.0.0.1", headers, hops=1) == "203.0.113.7"  # the proxy's entry
    assert client_address("10.0.0.1", [], hops=1) == "10.0.0.1"
    assert quota_owner("127.0.0.1") is None and quota_owner("::1") is None
    assert quota_owner("203.0.113.7") == "203.0.113.7"
    assert quota_owner("203.0.113.7", trusted=True) is None


async def test_one_client_takes_at_most_its_share_of_the_worker_threads() -> None:
    import threading

    from openenv.server.scheduling import WorkerPool

    pool = WorkerPool(workers=8, per_client=2)
    lock, inside, most = threading.Lock(), [0], [0]
    release = threading.Event()

    def work() -> None:
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        release.wait(10)
        with lock:
            inside[0] -= 1

    greedy = [asyncio.ensure_future(pool.call("203.0.113.7", work)) for _ in range(6)]

    async def two_inside() -> None:
        while inside[0] < 2:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(two_inside(), 10)  # the greedy client's share is taken
    other = asyncio.ensure_future(pool.call("198.51.100.2", lambda: "served"))
    assert await asyncio.wait_for(other, 10) == "served"  # not queued behind the greedy client
    release.set()
    await asyncio.gather(*greedy)
    assert most[0] == 2 and not pool._busy
    pool.shutdown()
