"""The client's connections (openenv.client.connections and .blocking) against real servers.

The blocking one (``.sync()``): the caller's thread does the I/O and it drives the async
client's own methods without an event loop (also inside a running loop, as in Jupyter); idle
connections answer the server's pings; a timed-out call's late answer never answers the next
call; a full server and a refused action give their wire codes. Both: ``wss://`` works and an
untrusted certificate is refused; a configured proxy hands the connection to ``websockets``'
own client; fast answers are polled for (the async one keeps its loop turning meanwhile).
(The async client's other behaviour is in test_client_env_client/test_server_ws.)

(Over 400 lines: each connection's tests share the servers and the fault injectors above them.)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import (
    OPENENV_SERVE_ARGS,
    ROOT,
    free_port,
    serve,
    stop_process_group,
    wait_healthy,
)
from grid_world_env import GridWorldAction, GridWorldEnv
from websockets.datastructures import Headers
from websockets.exceptions import InvalidHandshake, InvalidStatus
from websockets.http11 import Response

from openenv import pacing
from openenv.client import GenericEnvClient, blocking, connections
from openenv.client.blocking import BlockingConnection, run_now
from openenv.client.connections import AsyncConnection, redirect
from openenv.core import ClientError

PINGS = ["--ws-ping-interval", "0.3", "--ws-ping-timeout", "0.3"]


@pytest.fixture(scope="module")
def grid() -> Iterator[str]:
    env = {"ENABLE_WEB_INTERFACE": "0", "MAX_CONCURRENT_ENVS": "2"}
    with serve("grid_world_env.server.app:app", env=env, args=PINGS) as url:
        yield url


@pytest.fixture(scope="module")
def probe() -> Iterator[str]:
    with serve("wire_apps:app", args=["--app-dir", str(ROOT / "tests")]) as url:
        yield url


@pytest.fixture
def keepalive(monkeypatch: pytest.MonkeyPatch):
    """A fresh keepalive thread that reads idle connections every ``interval`` seconds."""

    def use(interval: float) -> None:
        monkeypatch.setattr(blocking, "KEEPALIVE_S", interval)
        monkeypatch.setattr(blocking, "KEEPALIVE", blocking._Keepalive())

    return use


def test_calls_run_in_the_callers_thread_on_a_blocking_connection(grid: str) -> None:
    with GridWorldEnv(base_url=grid).sync() as env:
        env.reset(episode_id="direct")
        assert isinstance(env.client._ws, BlockingConnection)
        assert env.step(GridWorldAction(action="DOWN")).observation.x == 1
        assert env.state().episode_id == "direct"
        assert env.client._modes._loop is None  # no event-loop thread was started


async def test_the_async_client_answers_pings_while_idle(grid: str) -> None:
    async with GridWorldEnv(base_url=grid) as env:
        await env.reset()
        assert isinstance(env._ws, AsyncConnection)
        await asyncio.sleep(2.0)  # the server pings every 0.3 s and gives up after 0.3 s
        assert (await env.step(GridWorldAction(action="DOWN"))).observation.x == 1


def test_it_works_inside_a_running_event_loop(grid: str) -> None:
    async def notebook_cell() -> int:  # Jupyter runs cells inside its own loop
        with GridWorldEnv(base_url=grid).sync() as env:
            env.reset()
            return env.step(GridWorldAction(action="RIGHT")).observation.y

    assert asyncio.run(notebook_cell()) == 1


def test_an_idle_connection_answers_pings_and_keeps_its_episode(grid: str, keepalive) -> None:
    keepalive(0.1)
    with GridWorldEnv(base_url=grid).sync() as env:
        env.reset()
        env.step(GridWorldAction(action="DOWN"))
        time.sleep(2.0)  # the server pings every 0.3 s and gives up after 0.3 s without a pong
        assert env.step(GridWorldAction(action="DOWN")).observation.x == 2
        assert env.state().step_count == 2


def test_without_the_keepalive_the_server_drops_an_idle_connection(grid: str, keepalive) -> None:
    keepalive(60.0)  # the control: nobody reads the socket during the pause
    with GridWorldEnv(base_url=grid).sync() as env:
        env.reset()
        time.sleep(2.0)
        with pytest.raises(ClientError) as dropped:
            env.step(GridWorldAction(action="DOWN"))
        assert "closed" in str(dropped.value)
        assert env.reset().observation.x == 0  # the next call reconnects to a new session


def test_a_timed_out_call_never_answers_the_next_one(probe: str) -> None:
    with GenericEnvClient(base_url=probe, message_timeout_s=1).sync() as env:
        env.reset()
        with pytest.raises(ClientError) as late:
            env.step({"label": "late", "hold": "b1"})
        assert late.value.server_code == "TIMEOUT"
        with GenericEnvClient(base_url=probe).sync() as other:  # let the held step finish
            other.reset()
            other.step({"label": "go", "release": "b1"})
        result = env.step({"label": "next"})
        assert (result.observation["label"], result.observation["count"]) == ("next", 2)


@pytest.fixture
def polls(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records each poll of a blocking connection: True when the answer came while polling."""
    seen: list[bool] = []
    poll = BlockingConnection._poll

    def recording(self: BlockingConnection, until: float) -> bytes | None:
        data = poll(self, until)
        seen.append(data is not None)
        return data

    monkeypatch.setattr(BlockingConnection, "_poll", recording)
    return seen


class Generous(pacing.Pacer):
    """Polls half a second for every answer: any answer comes while polling, however busy the
    machine (the rule itself is tested on its numbers in test_pacing.py)."""

    def budget(self) -> float:
        return 0.5


def test_fast_answers_are_polled_for_and_slow_ones_waited_for(probe: str, polls) -> None:
    with GenericEnvClient(base_url=probe).sync() as env:
        env.reset()
        env.client._ws.pacer = Generous(pacing.CLIENT_SPIN_S)
        for n in range(5):
            assert env.step({"label": f"fast {n}"}).observation["label"] == f"fast {n}"
        assert polls == [True] * 5  # each answer was taken while polling
        polls.clear()
        env.client._ws.pacer = pacing.Pacer(0.002, recent=0.0001)  # the rule, known fast
        for _ in range(6):  # 50 ms steps: polling stops once the average is over the budget
            assert env.step({"label": "slow", "sleep_s": 0.05}).observation["label"] == "slow"
        assert env.client._ws._spin_budget() == 0.0
        assert len(polls) <= 3 and not any(polls)  # each wait polled at most 2 ms, in vain


def test_one_thread_polls_at_a_time_and_the_others_wait_in_the_kernel(probe: str, polls) -> None:
    with GenericEnvClient(base_url=probe).sync() as env:
        env.reset()
        env.client._ws.pacer = Generous(pacing.CLIENT_SPIN_S)  # this call would poll
        with pacing.SPINNING:  # another thread or task is polling
            assert env.step({"label": "waits"}).observation["label"] == "waits"
        assert polls == [False]


async def test_the_async_client_polls_for_fast_answers_and_its_loop_keeps_running(
    probe: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    polled: list[tuple[bool, int]] = []  # per wait that polled: did the answer come, other turns
    keep_turning = pacing.keep_turning
    ticks = 0

    async def recording(until: float, arrived, clock=time.perf_counter) -> None:
        if until > clock():
            before = ticks
            await keep_turning(until, arrived, clock)
            polled.append((bool(arrived()), ticks - before))

    async def other_task() -> None:  # a task sharing the loop, e.g. another env of a pool
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    monkeypatch.setattr(pacing, "keep_turning", recording)
    async with GenericEnvClient(base_url=probe) as env:
        await env.reset()
        env._ws.pacer = Generous(pacing.CLIENT_SPIN_S)
        ticker = asyncio.ensure_future(other_task())
        for n in range(5):
            assert (await env.step({"label": f"fast {n}"})).observation["label"] == f"fast {n}"
        ticker.cancel()
        assert [came for came, _ in polled] == [True] * 5  # each answer came while polling
        assert all(turns > 0 for _, turns in polled)  # the other task ran while a call polled
        polled.clear()
        env._ws.pacer = pacing.Pacer(0.002, recent=0.0001)  # the rule, known fast
        for _ in range(6):  # 50 ms steps: polling stops once the average is over the budget
            assert (await env.step({"label": "slow", "sleep_s": 0.05})).observation["label"]
        assert len(polled) <= 3 and not any(came for came, _ in polled)


def test_polling_can_be_turned_off_and_the_plain_client_and_server_still_play() -> None:
    code = (
        "from openenv import pacing\n"
        "from grid_world_env import GridWorldAction, GridWorldEnv\n"
        "with GridWorldEnv(base_url={url!r}).sync() as env:\n"
        "    assert env.client._ws.pacer is pacing.PLAIN\n"
        "    env.reset(seed=0)\n"
        "    for _ in range(20):\n"
        "        result = env.step(GridWorldAction(action='DOWN'))\n"
        "    print(result.observation.x, env.state().step_count)\n"
    )
    plain = {"OPENENV_CLIENT_SPIN_US": "0", "OPENENV_SERVER_SPIN_US": "0"}
    server_env = {**plain, "ENABLE_WEB_INTERFACE": "0"}
    with serve("grid_world_env.server.app:app", env=server_env) as url:
        out = subprocess.run(
            [sys.executable, "-c", code.format(url=url)], env={**os.environ, **plain},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["4", "20"]  # the wall stops it at row 4


def test_a_full_server_and_a_server_error_reach_the_caller(grid: str) -> None:
    with GenericEnvClient(base_url=grid).sync() as one, GridWorldEnv(base_url=grid).sync() as two:
        one.reset(), two.reset()
        with pytest.raises(ClientError) as full:
            GridWorldEnv(base_url=grid).sync().reset()
        assert full.value.server_code == "CAPACITY_REACHED"
        with pytest.raises(ClientError) as refused:  # the generic client sends it as it is
            one.step({"action": "SIDEWAYS"})
        assert refused.value.server_code == "VALIDATION_ERROR"
        assert one.step({"action": "RIGHT"}).observation["y"] == 1  # the session is kept


def test_connecting_to_nothing_fails_fast_with_a_clear_error() -> None:
    env = GenericEnvClient(base_url=f"http://127.0.0.1:{free_port()}", connect_timeout_s=2)
    with pytest.raises(ClientError) as failed:
        env.sync().reset()
    assert failed.value.server_code == "CONNECT"


def test_a_silent_server_times_out_the_handshake() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        env = GenericEnvClient(
            base_url=f"http://127.0.0.1:{silent.getsockname()[1]}", connect_timeout_s=0.5
        )
        started = time.monotonic()
        with pytest.raises(ClientError) as failed:
            env.sync().connect()
        assert failed.value.server_code == "CONNECT"
        assert time.monotonic() - started < 5


def test_run_now_refuses_a_coroutine_that_needs_a_loop() -> None:
    async def sleeps() -> None:
        await asyncio.sleep(0)

    async def outer() -> None:
        with pytest.raises(RuntimeError, match="event loop"):
            run_now(sleeps())

    asyncio.run(outer())


async def test_a_proxy_hands_the_connection_to_websockets_own_client(
    grid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("no_proxy", "")
    sync = GridWorldEnv(base_url="https://user-env.hf.space", connect_timeout_s=2).sync()
    assert not sync.client._modes._direct and not sync.client._blocking  # on a loop thread
    with pytest.raises(ClientError) as failed:  # it really went to the proxy
        await GridWorldEnv(base_url="https://user-env.hf.space", connect_timeout_s=2).connect()
    assert failed.value.server_code == "CONNECT"
    assert "proxy" in str(failed.value).lower() or "127.0.0.1" in str(failed.value)
    monkeypatch.setenv("no_proxy", "user-env.hf.space")
    assert GridWorldEnv(base_url="https://user-env.hf.space").sync().client._modes._direct


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The grid world over TLS with a self-signed certificate for 127.0.0.1."""
    where = tmp_path_factory.mktemp("tls")
    key, cert = where / "key.pem", where / "cert.pem"
    make_cert = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    make_cert += ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
    make_cert += ["-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(make_cert, check=True, capture_output=True)
    port = free_port()
    cmd = [sys.executable, "-m", "uvicorn", "grid_world_env.server.app:app"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    cmd += [*OPENENV_SERVE_ARGS, "--ssl-keyfile", str(key), "--ssl-certfile", str(cert)]
    proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            assert proc.poll() is None and time.monotonic() < deadline, "TLS server did not start"
            time.sleep(0.1)
        yield f"https://127.0.0.1:{port}", cert
    finally:
        stop_process_group(proc)


def test_wss_works_with_a_trusted_certificate(tls_server, monkeypatch) -> None:
    url, cert = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with GridWorldEnv(base_url=url).sync() as env:
        env.reset()
        assert env.step(GridWorldAction(action="DOWN")).observation.x == 1


async def test_wss_works_with_the_async_client(tls_server, monkeypatch) -> None:
    url, cert = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    async with GridWorldEnv(base_url=url) as env:
        await env.reset()
        assert (await env.step(GridWorldAction(action="RIGHT"))).observation.y == 1


def test_wss_refuses_an_untrusted_certificate(tls_server) -> None:
    url, _ = tls_server
    with pytest.raises(ClientError) as refused:
        GridWorldEnv(base_url=url, connect_timeout_s=5).sync().reset()
    assert refused.value.server_code == "CONNECT"
    assert "certificate" in str(refused.value).lower()

    async def async_reset() -> None:
        await GridWorldEnv(base_url=url, connect_timeout_s=5).reset()

    with pytest.raises(ClientError) as refused_async:
        asyncio.run(async_reset())
    assert "certificate" in str(refused_async.value).lower()


@pytest.fixture
def redirector(grid: str) -> Iterator[str]:
    """An HTTP server that answers every request with a 307 to the grid world's /ws."""
    target = grid.replace("http://", "ws://") + "/ws"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def answer() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = listener.accept()
                with conn:
                    conn.recv(65536)
                    conn.sendall(
                        b"HTTP/1.1 307 Temporary Redirect\r\nLocation: "
                        + target.encode()
                        + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )

    threading.Thread(target=answer, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


async def test_both_clients_follow_a_redirect(redirector: str) -> None:
    async with GridWorldEnv(base_url=redirector) as env:
        assert (await env.reset()).observation.x == 0
    with GridWorldEnv(base_url=redirector).sync() as blocking:
        blocking.reset()
        assert blocking.step(GridWorldAction(action="DOWN")).observation.x == 1


def test_redirects_keep_credentials_at_their_origin_and_never_drop_tls() -> None:
    def status(code: int, location: str) -> InvalidStatus:
        return InvalidStatus(Response(code, "", Headers({"Location": location})))

    token = {"Authorization": "Bearer s3cret", "X-Trace": "1"}
    same = redirect("ws://a.example/ws", token, status(307, "/envs/x/ws"))
    assert same == ("ws://a.example/envs/x/ws", token)
    other = redirect("wss://a.example/ws", token, status(302, "wss://b.example/ws"))
    assert other == ("wss://b.example/ws", {"X-Trace": "1"})
    with pytest.raises(InvalidHandshake, match="insecure"):
        redirect("wss://a.example/ws", token, status(301, "ws://a.example/ws"))
    refused = status(403, "/elsewhere")
    with pytest.raises(InvalidStatus):
        redirect("ws://a.example/ws", token, refused)


@contextlib.contextmanager
def pausable_grid() -> Iterator[tuple[str, subprocess.Popen]]:
    """A grid-world server of our own, to pause with SIGSTOP (its process group)."""
    port = free_port()
    app = "grid_world_env.server.app:app"
    cmd = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--log-level", "warning", *OPENENV_SERVE_ARGS]
    env = {**os.environ, "ENABLE_WEB_INTERFACE": "0"}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url, proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGCONT)
        stop_process_group(proc)


def step_after_pausing(url: str, proc: subprocess.Popen, away_s: float) -> list[tuple]:
    """Pause the server, leave each client (``.sync()``, then async) idle ``away_s`` seconds,
    then step: how long each step took to fail, and its error. The server is resumed each time
    and the client's next call opens a new session."""
    failures: list[tuple[float, ClientError]] = []
    with GridWorldEnv(base_url=url).sync() as env:
        env.reset()
        os.killpg(proc.pid, signal.SIGSTOP)
        time.sleep(away_s)
        start = time.monotonic()
        with pytest.raises(ClientError) as lost:
            env.step(GridWorldAction(action="DOWN"))
        failures.append((time.monotonic() - start, lost.value))
        os.killpg(proc.pid, signal.SIGCONT)
        assert env.reset().observation.x == 0  # the next call opens a new session

    async def async_client() -> None:
        async with GridWorldEnv(base_url=url) as env:
            await env.reset()
            os.killpg(proc.pid, signal.SIGSTOP)
            await asyncio.sleep(away_s)
            start = time.monotonic()
            with pytest.raises(ClientError) as lost:
                await env.step(GridWorldAction(action="DOWN"))
            failures.append((time.monotonic() - start, lost.value))
            os.killpg(proc.pid, signal.SIGCONT)
            assert (await env.reset()).observation.x == 0

    asyncio.run(async_client())
    return failures


def test_a_paused_server_is_noticed_by_its_unanswered_ping(monkeypatch) -> None:
    """Not at the 60 s message timeout: two ping intervals after the server went silent."""
    monkeypatch.setattr(connections, "PING_S", 0.4)
    with pausable_grid() as (url, proc):
        for took, lost in step_after_pausing(url, proc, away_s=0):
            assert took < 5
            assert lost.server_code == "CLOSED" and "stopped answering" in str(lost)


def test_a_server_that_stops_answering_while_idle_fails_the_next_call_at_once(
    monkeypatch, keepalive
) -> None:
    """Between calls a silent server is pinged too (the keepalive thread; the async loop's timer):
    the next call does not wait two more ping intervals."""
    monkeypatch.setattr(connections, "PING_S", 0.4)
    keepalive(0.1)
    with pausable_grid() as (url, proc):
        # The notebook user is away 1.5 s: the pings go unanswered meanwhile.
        for took, lost in step_after_pausing(url, proc, away_s=1.5):
            assert took < 0.3  # not another 0.8 s of pinging
            assert lost.server_code == "CLOSED" and "stopped answering" in str(lost)


def test_a_slow_step_is_not_mistaken_for_a_dead_server(probe: str, monkeypatch) -> None:
    """The server answers pings while the step runs (in a worker): the call waits it out."""
    monkeypatch.setattr(connections, "PING_S", 0.2)
    pings = []
    send_ping = blocking.ClientProtocol.send_ping

    def counting(self, data):
        pings.append(data)
        return send_ping(self, data)

    monkeypatch.setattr(blocking.ClientProtocol, "send_ping", counting)
    with GenericEnvClient(base_url=probe).sync() as env:
        env.reset()
        result = env.step({"label": "slow", "sleep_s": 1.2})
        assert result.observation["label"] == "slow"
    assert len(pings) >= 2  # it did ask, and got its answers
