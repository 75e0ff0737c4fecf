"""Sessions: capacity, idle reaping, and every way a client can vanish releases its slot."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import ROOT, serve
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from wire_apps import ProbeAction, ProbeEnvironment

from openenv.server import create_app
from openenv.server.scheduling import Adaptive, Tuning
from openenv.server.sessions import SessionManager

APPS = ["--app-dir", str(ROOT / "tests")]
# Pings every 0.3 s, 0.3 s to answer: a peer that stopped answering is dropped quickly.
FAST_PINGS = ["--ws-ping-interval", "0.3", "--ws-ping-timeout", "0.3"]


@pytest.fixture(scope="module")
def two_slots() -> Iterator[str]:
    with serve("wire_apps:app", args=APPS, env={"MAX_CONCURRENT_ENVS": "2"}) as url:
        yield url


@pytest.fixture(scope="module")
def one_slot() -> Iterator[str]:
    with serve("wire_apps:app", args=APPS + FAST_PINGS, env={"MAX_CONCURRENT_ENVS": "1"}) as url:
        yield url


@pytest.fixture(scope="module")
def short_idle() -> Iterator[str]:
    with serve("wire_apps:app", args=APPS, env={"SESSION_TIMEOUT_S": "0.5"}) as url:
        yield url


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws"


async def ask(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(message))
    return json.loads(await asyncio.wait_for(ws.recv(), 20))


async def wait_for_slot(base: str, attempts: int = 200) -> dict[str, Any]:
    """Connect until the server accepts a session (the freed slot); return the reset reply."""
    for _ in range(attempts):
        async with connect(ws_url(base)) as ws:
            with contextlib.suppress(ConnectionClosed):  # a refusal may close it first
                await ws.send(json.dumps({"type": "reset", "data": {}}))
            try:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 20))
            except ConnectionClosed:
                assert ws.close_code == 1013  # refused: still at capacity
            else:
                if reply["type"] == "observation":
                    return reply
                assert reply["data"]["code"] == "CAPACITY_REACHED"
        await asyncio.sleep(0.1)
    raise AssertionError("the slot was never released")


async def test_a_full_server_refuses_clearly_and_accepts_again_after_a_close(
    two_slots: str,
) -> None:
    async with connect(ws_url(two_slots)) as a, connect(ws_url(two_slots)) as b:
        await ask(a, {"type": "reset", "data": {}})
        await ask(b, {"type": "reset", "data": {}})
        async with connect(ws_url(two_slots)) as third:
            refusal = json.loads(await asyncio.wait_for(third.recv(), 20))
            assert refusal["type"] == "error"
            assert refusal["data"]["code"] == "CAPACITY_REACHED"
            assert "capacity (2 concurrent sessions)" in refusal["data"]["message"]
            await asyncio.wait_for(third.wait_closed(), 20)
            assert third.close_code == 1013
        assert (await ask(a, {"type": "state"}))["type"] == "state"  # the others are untouched
        await a.send(json.dumps({"type": "close"}))
        await asyncio.wait_for(a.wait_closed(), 20)
        async with connect(ws_url(two_slots)) as fourth:
            assert (await ask(fourth, {"type": "reset", "data": {}}))["type"] == "observation"


async def test_an_unused_connection_is_closed_with_a_reason(short_idle: str) -> None:
    async with connect(ws_url(short_idle)) as ws:  # connected, and never sends a thing
        notice = json.loads(await asyncio.wait_for(ws.recv(), 20))
        assert notice["data"]["code"] == "SESSION_ERROR"
        assert "unused for more than 0.5s" in notice["data"]["message"]
        await asyncio.wait_for(ws.wait_closed(), 20)
        assert ws.close_code == 1001


async def test_a_connected_session_is_never_reaped_as_idle(short_idle: str) -> None:
    """A trainer's client waits through a gradient step: its session outlives the timeout."""
    async with connect(ws_url(short_idle)) as trainer:
        await ask(trainer, {"type": "reset", "data": {}})
        await ask(trainer, {"type": "step", "data": {"label": "before"}})
        async with connect(ws_url(short_idle)) as later:  # idle since after the trainer's step
            notice = json.loads(await asyncio.wait_for(later.recv(), 20))
            assert "unused for more than 0.5s" in notice["data"]["message"]
        # The pass that reaped `later` found the trainer idle longer still, and kept it.
        reply = await ask(trainer, {"type": "step", "data": {"label": "after"}})
        assert reply["type"] == "observation", reply
        assert reply["data"]["observation"]["label"] == "after"


async def test_a_busy_session_is_not_reaped_as_idle(short_idle: str) -> None:
    async with connect(ws_url(short_idle)) as ws:
        await ask(ws, {"type": "reset", "data": {}})
        reply = await ask(ws, {"type": "step", "data": {"label": "long", "sleep_s": 1.5}})
        assert reply["data"]["observation"]["label"] == "long"


def test_idle_reaping_is_on_by_default() -> None:
    app = create_app(ProbeEnvironment, enable_web=False)
    assert app.state.openenv.manager.idle_timeout_s == 600


async def test_a_dropped_socket_releases_its_session(one_slot: str) -> None:
    raw = _handshake(one_slot)
    _send_text(raw, json.dumps({"type": "reset", "data": {}}))
    assert b'"observation"' in raw.recv(4096)  # this socket holds the only slot
    raw.close()  # no close frame: the TCP connection just goes away
    assert (await wait_for_slot(one_slot))["type"] == "observation"


async def test_a_half_open_socket_that_stops_answering_pings_is_released(one_slot: str) -> None:
    raw = _handshake(one_slot)
    try:
        _send_text(raw, json.dumps({"type": "reset", "data": {}}))
        assert b'"observation"' in raw.recv(4096)  # this socket holds the only slot
        # From here on, this peer reads nothing and answers no ping.
        assert (await wait_for_slot(one_slot))["type"] == "observation"
    finally:
        raw.close()


async def test_a_frozen_client_process_is_released(one_slot: str, tmp_path) -> None:
    ready = tmp_path / "ready"
    script = textwrap.dedent(
        f"""
        import asyncio, json, pathlib
        from websockets.asyncio.client import connect
        async def main():
            async with connect({ws_url(one_slot)!r}, ping_interval=None) as ws:
                await ws.send(json.dumps({{"type": "reset", "data": {{}}}}))
                await ws.recv()
                pathlib.Path({str(ready)!r}).write_text("ok")
                await asyncio.sleep(600)
        asyncio.run(main())
        """
    )
    client = subprocess.Popen([sys.executable, "-c", script])
    try:
        for _ in range(400):
            if ready.exists() or client.poll() is not None:
                break
            await asyncio.sleep(0.05)
        assert ready.exists(), "the client never got its session"
        os.kill(client.pid, signal.SIGSTOP)
        assert (await wait_for_slot(one_slot))["type"] == "observation"
    finally:
        client.kill()
        client.wait(10)


async def test_the_session_of_a_closed_connection_cannot_be_used_again(one_slot: str) -> None:
    ws = await connect(ws_url(one_slot))
    await ask(ws, {"type": "reset", "data": {}})
    await ws.close()
    with pytest.raises(ConnectionClosed):
        await ask(ws, {"type": "state"})
    assert (await wait_for_slot(one_slot))["type"] == "observation"


# -- the session manager itself -----------------------------------------------------------------


class CountingEnv(ProbeEnvironment):
    """Records how many calls overlap and which threads ran them."""

    overlap = 0
    most = 0
    threads: set[int] = set()

    def step(self, action):
        cls = CountingEnv
        cls.overlap += 1
        cls.most = max(cls.most, cls.overlap)
        cls.threads.add(threading.get_ident())
        try:
            return super().step(action)
        finally:
            cls.overlap -= 1


async def test_calls_on_one_session_never_overlap() -> None:
    manager = SessionManager(CountingEnv, idle_timeout_s=None)
    session = await manager.open()
    await manager.reset(session)
    steps = [manager.step(session, ProbeAction(label=str(i), sleep_s=0.05)) for i in range(4)]
    observations = await asyncio.gather(*steps)
    assert sorted(o.count for o in observations) == [1, 2, 3, 4]
    assert CountingEnv.most == 1
    await manager.shutdown()


async def test_capacity_is_shared_by_every_kind_of_session() -> None:
    manager = SessionManager(ProbeEnvironment, max_sessions=1, idle_timeout_s=None)
    first = await manager.open("http")
    with pytest.raises(Exception, match="capacity") as refused:
        await manager.open("ws")
    assert refused.value.code == "CAPACITY_REACHED"
    await manager.close(first.id)
    await manager.open("ws")
    await manager.shutdown()
    assert manager.active == 0


async def test_fast_sync_steps_run_on_the_loop_and_slow_ones_in_a_worker() -> None:
    CountingEnv.threads = set()
    manager = SessionManager(CountingEnv, idle_timeout_s=None)
    session = await manager.open()
    await manager.reset(session)
    for _ in range(50):
        await manager.step(session, ProbeAction(label="fast"))
    assert threading.get_ident() in CountingEnv.threads  # proved fast: no thread hop any more
    slow = await manager.open()
    await manager.reset(slow)
    CountingEnv.threads = set()
    for _ in range(6):  # more than it takes a fast session to go inline
        await manager.step(slow, ProbeAction(label="slow", sleep_s=0.03))
    assert threading.get_ident() not in CountingEnv.threads  # never on the event loop
    await manager.shutdown()


async def test_a_pooled_session_that_is_fast_on_the_loop_comes_back_to_it() -> None:
    """On the scheduler's own clock (fake time: a loaded machine cannot make the inline retry
    look slow), a session whose calls take 3 ms in a worker (what a busy loop holding the GIL
    looks like) and 0.1 ms on the loop is retried there, and stays."""
    clock = FakeClock()

    class SlowInWorkersEnv(ProbeEnvironment):
        threads: set[int] = set()

        def step(self, action):
            SlowInWorkersEnv.threads.add(threading.get_ident())
            in_worker = threading.current_thread() is not threading.main_thread()
            clock.now += 0.003 if in_worker else 0.0001
            return super().step(action)

    manager = SessionManager(SlowInWorkersEnv, idle_timeout_s=None, scheduler=Adaptive(clock=clock))
    session = await manager.open()
    await manager.reset(session)
    for _ in range(3):
        await manager.step(session, ProbeAction(label="warm-up"))
    assert threading.get_ident() not in SlowInWorkersEnv.threads  # 3 ms readings: the pool
    for _ in range(40):  # more than RETRY_FIRST pooled calls
        await manager.step(session, ProbeAction(label="retry"))
    SlowInWorkersEnv.threads = set()
    await manager.step(session, ProbeAction(label="back"))
    assert SlowInWorkersEnv.threads == {threading.get_ident()}
    await manager.shutdown()


async def test_one_slow_call_does_not_send_a_fast_session_to_the_pool() -> None:
    """On the scheduler's own clock (fake time: a loaded machine cannot make a fast step look
    slow), one 30 ms hiccup among fast steps leaves the session running inline."""
    clock = FakeClock()

    class TimedEnv(ProbeEnvironment):
        threads: set[int] = set()

        def step(self, action):
            TimedEnv.threads.add(threading.get_ident())
            clock.now += action.sleep_s or 0.0001  # what the step "took", without sleeping
            return super().step(action.model_copy(update={"sleep_s": 0.0}))

    manager = SessionManager(TimedEnv, idle_timeout_s=None, scheduler=Adaptive(clock=clock))
    session = await manager.open()
    await manager.reset(session)
    for _ in range(Tuning.inline_after + 1):  # readings before it may run on the loop
        await manager.step(session, ProbeAction(label="fast"))
    for _ in range(20):  # a session known to be fast: its average is past the first readings
        TimedEnv.threads = set()
        await manager.step(session, ProbeAction(label="fast"))
        assert TimedEnv.threads == {threading.get_ident()}
    await manager.step(session, ProbeAction(label="hiccup", sleep_s=0.03))
    TimedEnv.threads = set()
    await manager.step(session, ProbeAction(label="fast"))
    assert TimedEnv.threads == {threading.get_ident()}
    await manager.shutdown()


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_idle_sessions_hold_no_thread() -> None:
    manager = SessionManager(ProbeEnvironment, idle_timeout_s=None)
    before = threading.active_count()
    sessions = [await manager.open() for _ in range(50)]
    for session in sessions:
        await manager.reset(session)
    assert threading.active_count() - before < 10  # a small shared pool, not one per session
    await manager.shutdown()


def _handshake(base: str) -> socket.socket:
    """Open a raw TCP socket and complete the WebSocket handshake by hand."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    response = b""
    while b"\r\n\r\n" not in response:
        response += sock.recv(4096)
    assert response.startswith(b"HTTP/1.1 101"), response
    return sock


def _send_text(sock: socket.socket, text: str) -> None:
    """Send one masked text frame (payloads under 126 bytes)."""
    payload = text.encode()
    assert len(payload) < 126
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
