"""One visitor cannot freeze a server: expensive steps from one client leave /health, pings and
other clients' steps served, and a step that runs past the server's limit ends its own session.

The server runs in a process of its own, behind a stand-in proxy (``OPENENV_TRUSTED_PROXIES=1``
and an ``X-Forwarded-For`` per client), so each client counts as the outside address it claims.
The bounds below catch a freeze (seconds); the latencies themselves are measured by
``bench/bench_abuse.py``, not asserted here.
"""

from __future__ import annotations

import socket
import statistics
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from conftest import ROOT, serve

from openenv.client import GenericEnvClient
from openenv.core import ClientError

ABUSER, VISITOR = "203.0.113.7", "198.51.100.2"
SETTINGS = {
    "OPENENV_TRUSTED_PROXIES": "1",
    "OPENENV_CALL_TIMEOUT_S": "3",
    "OPENENV_HEADER_TIMEOUT_S": "1",
}
FREEZE_S = 2.0  # any answer slower than this is a server held hostage


@pytest.fixture(scope="module")
def probe() -> Iterator[str]:
    with serve("wire_apps:app", args=["--app-dir", str(ROOT / "tests")], env=SETTINGS) as url:
        yield url


def client(base: str, address: str) -> GenericEnvClient:
    return GenericEnvClient(base_url=base, headers={"X-Forwarded-For": address})


def abuse(base: str, stop: threading.Event, sessions: int = 6) -> list[threading.Thread]:
    """``sessions`` connections of one client, each stepping 0.5 s of computing, over and over."""

    def run() -> None:
        with client(base, ABUSER).sync() as env:
            env.reset()
            while not stop.is_set():
                env.step({"label": "expensive", "busy_s": 0.5})

    threads = [threading.Thread(target=run, daemon=True) for _ in range(sessions)]
    for thread in threads:
        thread.start()
    return threads


def test_expensive_steps_of_one_client_leave_health_and_other_clients_served(probe: str) -> None:
    stop = threading.Event()
    threads = abuse(probe, stop)
    try:
        time.sleep(1.0)  # the abuse is under way (its own pace, not a wait for the server)
        health, steps = [], []
        with client(probe, VISITOR).sync() as env:
            env.reset()
            for n in range(30):
                started = time.perf_counter()
                assert httpx.get(probe + "/health", timeout=10).status_code == 200
                health.append(time.perf_counter() - started)
                started = time.perf_counter()
                assert env.step({"label": f"fast {n}"}).observation["label"] == f"fast {n}"
                steps.append(time.perf_counter() - started)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert max(health) < FREEZE_S and max(steps) < FREEZE_S, (max(health), max(steps))
    assert statistics.median(health) < 0.5 and statistics.median(steps) < 0.5


def test_a_step_past_the_limit_ends_its_session_and_nothing_else(probe: str) -> None:
    with client(probe, VISITOR).sync() as bystander, client(probe, ABUSER).sync() as env:
        bystander.reset()
        env.reset()
        started = time.monotonic()
        with pytest.raises(ClientError) as overran:
            env.step({"label": "forever", "busy_s": 8})
        assert time.monotonic() - started < 7  # told after the 3 s limit, not after 8 s
        assert "ran past its 3 s limit" in str(overran.value)
        assert bystander.step({"label": "still here"}).observation["label"] == "still here"
        assert env.reset().observation["label"] == "reset"  # a new session for the same client


def test_one_client_holds_at_most_its_share_of_sessions(probe: str) -> None:
    import os  # the quota's default, the same as the server's (it reads no override here)

    from openenv.server.clients import DEFAULT_PER_CLIENT

    assert "MAX_SESSIONS_PER_CLIENT" not in SETTINGS and "MAX_SESSIONS_PER_CLIENT" not in os.environ
    envs = [client(probe, "192.0.2.9").sync() for _ in range(DEFAULT_PER_CLIENT)]
    try:
        for env in envs:
            env.reset()
        with pytest.raises(ClientError) as refused, client(probe, "192.0.2.9").sync() as extra:
            extra.reset()
        assert refused.value.server_code == "CAPACITY_REACHED"
        assert "the most one client may" in str(refused.value)
        with client(probe, "192.0.2.10").sync() as other:  # another client is not refused
            assert other.reset().observation["label"] == "reset"
    finally:
        for env in envs:
            env.close()


def closed_by_server(conn: socket.socket, dribble: bytes = b"") -> bool:
    """Wait (up to 30 s) for the server to close ``conn``, sending ``dribble`` now and then."""
    conn.settimeout(0.2)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if conn.recv(1024) == b"":
                return True
        except TimeoutError:
            pass
        except OSError:  # reset: closed too
            return True
        try:
            conn.sendall(dribble)
        except OSError:
            return True
    return False


def test_a_connection_that_never_finishes_its_headers_is_closed(probe: str) -> None:
    address = urlsplit(probe)
    where = (address.hostname, address.port)
    with client(probe, VISITOR).sync() as env:
        env.reset()  # a WebSocket session, opened before and idle while the others are closed
        with socket.create_connection(where) as silent, socket.create_connection(where) as slow:
            slow.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            assert closed_by_server(silent)  # connected, sent nothing
            assert closed_by_server(slow, dribble=b"X")  # headers a byte at a time
        assert env.step({"label": "after"}).observation["label"] == "after"
    with socket.create_connection(where) as prompt:  # a request sent whole is answered
        prompt.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        prompt.settimeout(10)
        assert prompt.recv(1024).startswith(b"HTTP/1.1 200")
