"""Code in the coding sandbox has no network: neither the internet nor the host's loopback
services. ``CODING_NETWORK=on`` gives it back; where no namespace can be made, nothing runs."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from coding_env import CodeAction, CodeObservation
from coding_env.server.environment import CodingEnvironment
from namespaces import without_namespaces

from openenv.sandbox.isolation import isolation
from openenv.sandbox.sandbox import SandboxLimits

LIMITS = SandboxLimits(timeout_s=20, cpu_s=10, memory_mb=256, file_size_mb=4, processes=16)
CONNECT = (
    "import socket\n"
    "with socket.create_connection(('127.0.0.1', {port}), timeout=5) as s:\n"
    "    print('got', s.recv(100).decode())\n"
)


@pytest.fixture(scope="module")
def loopback_server() -> Iterator[tuple[int, str]]:
    """A TCP server of the test on 127.0.0.1 that greets each connection with a secret token."""
    token = secrets.token_hex(8)
    server = socket.create_server(("127.0.0.1", 0))

    def greet() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # the socket was shut down: the module's tests are over
                return
            with conn:
                conn.sendall(token.encode())

    threading.Thread(target=greet, daemon=True).start()
    yield server.getsockname()[1], token
    server.shutdown(socket.SHUT_RDWR)
    server.close()


def run_once(code: str, limits: SandboxLimits = LIMITS) -> tuple[CodeObservation, bool]:
    env = CodingEnvironment(limits)
    env.reset(seed=0)
    try:
        return env.step(CodeAction(code=code)), env.state.network_access
    finally:
        env.close()


def test_code_cannot_reach_a_server_on_the_host_s_loopback(loopback_server) -> None:
    port, token = loopback_server
    obs, network_access = run_once(CONNECT.format(port=port))
    assert obs.exit_code == 1 and token not in obs.stdout
    assert "OSError: [Errno 101] Network is unreachable" in obs.stderr
    assert network_access is False


def test_code_cannot_resolve_names_or_connect_outward() -> None:
    code = (
        "import socket\n"
        "print(socket.if_nameindex())\n"
        "try:\n"
        "    socket.getaddrinfo('pypi.org', 443)\n"
        "except socket.gaierror as exc:\n"
        "    print('no name resolution:', exc)\n"
        "socket.create_connection(('1.1.1.1', 53), timeout=5)\n"
    )
    obs, _ = run_once(code)
    lines = obs.stdout.splitlines()
    assert lines[0] == "[(1, 'lo')]"  # a namespace of its own: no interface but loopback
    assert lines[1].startswith("no name resolution:")
    assert obs.exit_code == 1 and "Network is unreachable" in obs.stderr


def test_without_network_normal_code_subprocesses_and_limits_still_work() -> None:
    env = CodingEnvironment(LIMITS)
    env.reset(seed=0)
    try:
        assert env.step(CodeAction(code="x = sum(range(10))")).exit_code == 0
        shell = env.step(CodeAction(code="import os\nos.system(f'echo {x}')"))
        big = "open('big.bin', 'wb').write(b'x' * 5 * 2**20)"
        too_big = env.step(CodeAction(code=big))
        after = env.step(CodeAction(code="print(x * 2)"))
    finally:
        env.close()
    assert (shell.stdout, shell.exit_code) == ("45\n", 0)
    assert too_big.exit_code == 1 and "file size limit of 4 MB" in too_big.stderr
    assert after.stdout == "90\n"


def test_coding_network_on_restores_access(loopback_server) -> None:
    port, token = loopback_server
    limits = SandboxLimits.from_env({"CODING_NETWORK": "on", "CODING_MEMORY_MB": "256"})
    obs, network_access = run_once(CONNECT.format(port=port), limits)
    assert (obs.stdout, obs.stderr, obs.exit_code) == (f"got {token}\n", "", 0)
    assert network_access is True


def test_coding_network_accepts_off_and_on_only() -> None:
    assert SandboxLimits.from_env({}).network is False
    assert SandboxLimits.from_env({"CODING_NETWORK": "off"}).network is False
    assert SandboxLimits.from_env({"CODING_NETWORK": "ON"}).network is True
    with pytest.raises(ValueError, match=r"CODING_NETWORK must be 'off' .* or 'on', got 'yes'"):
        SandboxLimits.from_env({"CODING_NETWORK": "yes"})


def test_isolation_reports_the_network_in_force() -> None:
    assert isolation().network in ("namespace", "user namespace")
    assert isolation(network=True).network == "host"
    if os.geteuid() == 0:  # root makes the namespace itself, before dropping to the sandbox uid
        assert (isolation().users, isolation().network) == ("uid", "namespace")


# Run the environment where the kernel refuses new network namespaces: a user namespace of
# its own (uids mapped to themselves) whose user.max_net_namespaces is 0. Needs root.
IN_A_NAMESPACE_WITHOUT_NETNS = without_namespaces("net")

STEP_WITH_AND_WITHOUT_NETWORK = """
from coding_env import CodeAction
from coding_env.server.environment import CodingEnvironment
from openenv.sandbox.isolation import SandboxUnavailable
from openenv.sandbox.sandbox import SandboxLimits
for network in (False, True):
    env = CodingEnvironment(SandboxLimits(memory_mb=256, network=network))
    env.reset()
    try:
        print("ran:", env.step(CodeAction(code="print(6 * 7)")).stdout.strip())
    except SandboxUnavailable as exc:
        print("refused:", exc, "| steps:", env.state.step_count)
    env.close()
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="lowering a namespace limit needs root")
def test_where_no_namespace_can_be_made_no_code_runs_unless_network_is_allowed() -> None:
    result = subprocess.run(
        [sys.executable, "-c", IN_A_NAMESPACE_WITHOUT_NETNS, STEP_WITH_AND_WITHOUT_NETWORK],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    refused, ran = result.stdout.splitlines()
    assert refused.startswith("refused: coding_env cuts the code off the network")
    assert "No space left on device" in refused  # the kernel's answer, passed on
    assert "set CODING_NETWORK=on" in refused and refused.endswith("| steps: 0")
    assert ran == "ran: 42"
