"""A Harbor agent in the process sandbox reaches the capture proxy and nothing else.

Covered: mini-swe-agent still solves hello-file through the forwarded proxy (reward 1); from
inside the sandbox the proxy's URL answers while another loopback port of the host, the host's
own non-loopback address and 10.255.255.1 fail at once; the verifier reaches nothing; the
forwarded port's thread, file descriptors and socket file are gone after the harness and after a
close in the middle of a connection; a relay serves at most its number of connections; and
where no network namespace can be made, the sandbox refuses unless HARBOR_ALLOW_HOST_NETWORK=on,
and says so.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from harbor_support import MODEL, TRAIN, mini_swe_agent, sandbox_or_skip

from openenv.core.harness import sandboxes
from openenv.core.harness.capture import CaptureProxy, Upstream, create_capture_app
from openenv.core.harness.engine import Engine, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.rollout import run_rollout
from openenv.core.harness.sandboxes import ProcessTaskSandbox
from openenv.core.harness.tasks import load_task, shipped_tasks
from openenv.sandbox.isolation import SandboxUnavailable
from openenv.sandbox.relay import Relay, tcp_connector
from openenv.sandbox.sandbox import Sandbox, SandboxLimits

FAST_S = 3.0  # a refused or unroutable connection fails well within this, even on a busy box
HELLO = load_task(shipped_tasks() / "hello-file")

_PROBE = """
import json, socket, sys, time
out = {}
for name, host, port in json.loads(sys.argv[1]):
    started = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=20) as s:
            s.sendall(b"GET /nowhere HTTP/1.0\\r\\n\\r\\n")
            out[name] = ["ok", s.recv(12).decode("ascii", "replace")]
    except OSError as exc:
        out[name] = ["failed", exc.strerror or str(exc)]
    out[name].append(time.monotonic() - started)
print("PROBE " + json.dumps(out))
"""


def _host_address() -> str | None:
    """The host's own non-loopback IPv4 address, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.1", 9))  # no packet is sent: this only picks the route
        except OSError:
            return None
        address = s.getsockname()[0]
    return None if address.startswith("127.") else address


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _settles(condition: Callable[[], bool], timeout_s: float = 30.0) -> bool:
    """Whether ``condition`` holds within ``timeout_s`` (other threads' sockets come and go)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _forward_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("sandbox-port:")]


@pytest.fixture(scope="module")
def proxy() -> Iterator[tuple[CaptureProxy, str]]:
    """The scripted TEST engine (solving hello-file) behind one capture proxy, for the module."""
    solve = (HELLO.path / "solution" / "solve.sh").read_text().strip()
    engine = Engine(script=bash_policy([solve]))
    with serve_in_thread(create_engine_app(engine)) as engine_url:
        proxy = CaptureProxy(Upstream(f"{engine_url}/v1", model=MODEL), TRAIN)
        with serve_in_thread(create_capture_app(proxy)) as url:
            yield proxy, url


@pytest.fixture(scope="module")
def other_port() -> Iterator[int]:
    """A port the host serves on every address (loopback and its own): the sandbox's is not."""
    server = socket.create_server(("0.0.0.0", 0))
    yield server.getsockname()[1]
    server.close()


@pytest.fixture(scope="module")
def probed(proxy: tuple[CaptureProxy, str], other_port: int) -> Iterator[dict]:
    """One sandbox: the probe run as its harness, then a verifier that tries the proxy."""
    sandbox_or_skip()
    port = int(proxy[1].rsplit(":", 1)[1])
    box = ProcessTaskSandbox(harness_timeout_s=60, verifier_timeout_s=60, proxy_url=proxy[1])
    targets = [
        ("proxy", "127.0.0.1", port),
        ("other loopback port", "127.0.0.1", other_port),
        ("unroutable", "10.255.255.1", 80),
    ]
    if (address := _host_address()) is not None:
        targets.append(("host address", address, other_port))
    try:
        box.seed({"README": b"probe\n"})
        fds = _fds()
        ran = box.run_harness([box.box.python, "-c", _PROBE, json.dumps(targets)], {}, 60)
        after = {"fds": _settles(lambda: _fds() <= fds), "threads": _forward_threads()}
        verifier = _VERIFIER.format(port=port).encode()
        verdict = box.verify({"test.sh": verifier}, {}, 60)
    finally:
        box.close()
    line = next(x for x in ran.log_tail.splitlines() if x.startswith("PROBE "))
    yield {"probe": json.loads(line[6:]), "after": after, "verdict": verdict, "box": box}


_VERIFIER = """#!/bin/bash
mkdir -p "$LOGS_DIR/verifier"
python3 - <<'EOF' > "$LOGS_DIR/verifier/reward.txt"
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=20).close()
    print(0)
except OSError as exc:
    print(1)
EOF
"""


def test_the_agent_reaches_the_proxy_at_its_url(probed: dict) -> None:
    outcome, said, _ = probed["probe"]["proxy"]
    assert (outcome, said[:5]) == ("ok", "HTTP/"), probed["probe"]


def test_every_other_address_fails_at_once(probed: dict) -> None:
    probe = probed["probe"]
    others = {name: result for name, result in probe.items() if name != "proxy"}
    assert len(others) >= 2, probe
    for name, (outcome, why, seconds) in others.items():
        assert outcome == "failed", (name, probe)
        assert why in ("Connection refused", "Network is unreachable"), (name, why)
        assert seconds < FAST_S, (name, seconds)


def test_the_verifier_reaches_nothing_and_the_forwarded_port_is_gone_after_the_harness(
    probed: dict,
) -> None:
    assert probed["verdict"].reward == 1.0, probed["verdict"]  # its connection was refused
    assert probed["after"] == {"fds": True, "threads": []}
    assert probed["box"].network == sandboxes.PROXY_ONLY


def test_a_sandbox_closed_while_a_connection_is_relayed_leaves_nothing(
    proxy: tuple[CaptureProxy, str],
) -> None:
    sandbox_or_skip()
    port = int(proxy[1].rsplit(":", 1)[1])
    box = Sandbox(SandboxLimits(timeout_s=120, loopback=True))
    assert box.run("print(1)").stdout == "1\n"
    fds = _fds()
    forwarded = box.forward(port)
    host_path = forwarded._host_path
    assert os.path.exists(host_path) and _forward_threads()
    hold = f"import socket, time\ns = socket.socket(socket.AF_UNIX)\ns.connect({forwarded.path!r})"
    cell = threading.Thread(target=box.run, args=(hold + "\ntime.sleep(100)",), daemon=True)
    cell.start()
    deadline = time.monotonic() + 60
    while forwarded.connections < 1:
        assert time.monotonic() < deadline, "the sandbox's connection never arrived"
        time.sleep(0.05)
    box.close()
    cell.join(timeout=30)
    assert not cell.is_alive()
    assert _forward_threads() == []
    assert _settles(lambda: _fds() <= fds)
    assert not os.path.exists(host_path)


def test_a_relay_serves_at_most_its_number_of_connections() -> None:
    echo = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = echo.accept()
            except OSError:
                return
            threading.Thread(target=lambda c=conn: c.sendall(c.recv(10)), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    listener = socket.create_server(("127.0.0.1", 0))
    relay = Relay(listener, tcp_connector("127.0.0.1", echo.getsockname()[1]), 2)
    relay.start("test-relay")
    address = listener.getsockname()
    clients = [socket.create_connection(address, timeout=30) for _ in range(3)]
    try:
        for n, client in enumerate(clients):
            client.sendall(b"%d" % n)
        assert [clients[n].recv(10) for n in (0, 1)] == [b"0", b"1"]
        clients[2].settimeout(0.5)
        with pytest.raises(TimeoutError):
            clients[2].recv(10)  # the third waits in the backlog
        clients[0].close()
        clients[2].settimeout(30)
        assert clients[2].recv(10) == b"2"  # served once one ended
    finally:
        relay.stop()
        for client in clients:
            client.close()
        echo.close()
    assert listener.fileno() == -1 and relay.connections == 0


def test_mini_swe_agent_solves_hello_file_through_the_forwarded_proxy(
    proxy: tuple[CaptureProxy, str],
) -> None:
    capture, url = proxy
    result = run_rollout(HELLO, proxy=capture, proxy_url=url, harness=mini_swe_agent(), model=MODEL)
    assert (result.status, result.reward) == ("ok", 1.0), (result.reason, result.log_tail)
    assert result.n_turns >= 2


def test_without_a_network_namespace_the_host_network_needs_the_operators_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sandbox_or_skip()
    real = sandboxes.isolation
    monkeypatch.setattr(
        sandboxes,
        "isolation",
        lambda network=False, allow_unisolated=False: (
            real(network=True) if network else _raise("no network namespace (test)")
        ),
    )
    with pytest.raises(SandboxUnavailable, match="HARBOR_ALLOW_HOST_NETWORK=on"):
        sandboxes.agent_network({})
    assert sandboxes.process_sandbox_status({})[0] is False
    on = {"HARBOR_ALLOW_HOST_NETWORK": "on"}
    assert sandboxes.agent_network(on) == sandboxes.HOST
    available, detail = sandboxes.process_sandbox_status(on)
    assert available and "network=host (HARBOR_ALLOW_HOST_NETWORK=on" in detail
    with pytest.raises(ValueError, match="HARBOR_ALLOW_HOST_NETWORK"):
        sandboxes.agent_network({"HARBOR_ALLOW_HOST_NETWORK": "yes"})


def _raise(message: str) -> object:
    raise SandboxUnavailable(message)
