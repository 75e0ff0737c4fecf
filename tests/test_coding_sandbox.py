"""Hostile code over the wire: each program ends in a clear error within its limit, and the
server and a bystander session (with its variables) carry on unharmed.

Durations are printed (run with ``-s`` to see them); the only timing assertion is a generous
bound on the wall-clock limit.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import httpx
import pytest
from coding_env import CodeAction, CodingEnv
from conftest import serve

TIMEOUT_S = 4.0
SECRET = "hunter2-do-not-leak"
SERVER_ENV = {
    "ENABLE_WEB_INTERFACE": "0",
    "CODING_TIMEOUT_S": str(TIMEOUT_S),
    "CODING_CPU_S": "2",
    "CODING_MEMORY_MB": "256",
    "CODING_FILE_SIZE_MB": "4",
    "CODING_MAX_PROCESSES": "16",
    "OPENENV_TEST_SECRET": SECRET,
}

HOSTILE = {
    "infinite loop": ("while True:\n    pass", "time limit"),
    "sleeping forever": ("import time\ntime.sleep(600)", "wall-clock time limit of 4 s"),
    "memory bomb": ("hog = []\nwhile True:\n    hog.append(bytearray(10**7))", "memory limit"),
    "fork bomb": ("import os\nwhile True:\n    os.fork()", "process limit"),
    "huge file": (
        "with open('big.bin', 'wb') as f:\n    while True:\n        f.write(b'x' * 10**6)",
        "file size limit of 4 MB",
    ),
}


@pytest.fixture(scope="module")
def coding_url() -> Iterator[str]:
    with serve("coding_env.server.app:app", env=SERVER_ENV) as url:
        yield url


@pytest.fixture(scope="module")
def bystander(coding_url: str) -> Iterator:
    """Another session, with a variable that hostile code in other sessions must not touch."""
    with CodingEnv(base_url=coding_url).sync() as env:
        env.reset()
        assert env.step(CodeAction(code="canary = 'still here'")).observation.exit_code == 0
        yield env


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_code_ends_in_a_clear_error(coding_url: str, bystander, name: str) -> None:
    code, expected = HOSTILE[name]
    with CodingEnv(base_url=coding_url, message_timeout_s=120).sync() as env:
        env.reset()
        env.step(CodeAction(code="mine = 1"))
        started = time.monotonic()
        obs = env.step(CodeAction(code=code)).observation
        took = time.monotonic() - started
        print(f"\n{name}: exit code {obs.exit_code} after {took:.2f} s: {obs.stderr[-160:]!r}")
        assert obs.exit_code != 0
        assert expected in obs.stderr
        assert took < TIMEOUT_S + 10
        assert env.step(CodeAction(code="print('usable')")).observation.stdout == "usable\n"
    assert httpx.get(coding_url + "/health", timeout=10).json() == {"status": "healthy"}
    still = bystander.step(CodeAction(code="print(canary)")).observation
    assert still.stdout == "still here\n"


def test_the_server_s_environment_is_invisible(coding_url: str) -> None:
    probe = (
        "import os\n"
        "print(sorted(os.environ))\n"
        "try:\n"
        "    print(open(f'/proc/{os.getppid()}/environ', 'rb').read())\n"
        "except OSError as exc:\n"
        "    print('unreadable', type(exc).__name__)\n"
    )
    with CodingEnv(base_url=coding_url).sync() as env:
        env.reset()
        obs = env.step(CodeAction(code=probe)).observation
    assert obs.stdout.splitlines()[0] == "['HOME', 'LANG', 'LC_ALL', 'PATH', 'TMPDIR']"
    assert "unreadable PermissionError" in obs.stdout  # the server's /proc is off limits
    assert SECRET not in obs.stdout


def test_code_cannot_reach_the_server_that_runs_it(coding_url: str) -> None:
    probe = f"import urllib.request\nurllib.request.urlopen({coding_url + '/health'!r}, timeout=5)"
    with CodingEnv(base_url=coding_url).sync() as env:
        env.reset()
        result = env.step(CodeAction(code=probe))
        state = env.state()
    assert result.observation.exit_code == 1
    assert "Network is unreachable" in result.observation.stderr
    assert state.network_access is False


def test_sessions_get_separate_private_directories_never_on_the_host(coding_url: str) -> None:
    where = "import os; open('mine.txt', 'w').write('x'); print(os.getcwd())"
    with CodingEnv(base_url=coding_url).sync() as a, CodingEnv(base_url=coding_url).sync() as b:
        a.reset()
        b.reset()
        dir_a = a.step(CodeAction(code=where)).observation.stdout.strip()
        dir_b = b.step(CodeAction(code=where)).observation.stdout.strip()
        assert dir_a != dir_b
        # each on the sandbox's own disk (a tmpfs in its mount namespace), not the host's
        assert not os.path.exists(dir_a) and not os.path.exists(dir_b)
        snoop = f"print(open({os.path.join(dir_a, 'mine.txt')!r}).read())"
        seen = b.step(CodeAction(code=snoop)).observation
        # not even visible: b's /tmp is a tmpfs of its own that holds only b's directory
        assert "FileNotFoundError" in seen.stderr and seen.stdout == ""
