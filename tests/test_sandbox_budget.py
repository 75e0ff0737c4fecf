"""A sandbox is one budget: each limit is exceeded by a step, the step gets a clear error, the
host keeps its memory and disk, and the session goes on in a fresh sandbox.

The sizes are small on purpose (a 96 MiB memory budget, a 32 MiB disk): if a limit failed, the
test would take a few hundred MiB of this shared machine, never gigabytes. Each memory case
runs twice: with the kernel's control group (where the server may make one; root here) and
with the launcher's measured fallback (``OPENENV_SANDBOX_CGROUPS=off``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator

import pytest

from openenv.sandbox import Sandbox, SandboxLimits, cgroups

MIB = 2**20
LIMITS = SandboxLimits(
    memory_mb=96, disk_mb=32, processes=12, timeout_s=30, cpu_s=20, file_size_mb=64
)

# Ten children of 40 MiB each: 400 MiB if memory were limited per process only.
FORK_HOGS = """
import os, time
kids = []
for i in range(10):
    pid = os.fork()
    if pid == 0:
        hog = bytearray(40 * 2**20)
        for j in range(0, len(hog), 4096):
            hog[j] = 1
        time.sleep(60)
        os._exit(0)
    kids.append(pid)
for kid in kids:
    os.waitpid(kid, 0)
print('all children done')
"""

FILL_DISK = """
import errno, json, os
written, error = 0, None
try:
    for i in range(25):  # 100 MiB in files of 4 MiB, under the file size limit
        with open(f'part-{i}', 'wb') as f:
            for _ in range(4):
                written += f.write(b'x' * 2**20)
except OSError as exc:
    error = errno.errorcode[exc.errno]
print(json.dumps([written, error]))
"""


@pytest.fixture(params=["cgroup", "measured"])
def way(request, monkeypatch) -> Iterator[str]:
    """Where the memory budget is kept: the kernel's cgroup, or the launcher's measuring."""
    cgroups._layout.cache_clear()
    if request.param == "measured":
        monkeypatch.setenv("OPENENV_SANDBOX_CGROUPS", "off")
    elif cgroups._layout() is None:
        pytest.skip("this machine lets the server make no cgroup (not root, or none delegated)")
    yield request.param
    cgroups._layout.cache_clear()


@pytest.fixture
def sandbox(way: str) -> Iterator[Sandbox]:
    box = Sandbox(LIMITS)
    yield box
    box.close()


def test_memory_is_one_budget_for_all_the_sandbox_s_processes(sandbox: Sandbox, way) -> None:
    assert sandbox.run("x = 'before'").exit_code == 0
    assert (sandbox._live.cgroup is not None) == (way == "cgroup")
    result = sandbox.run(FORK_HOGS)
    assert result.exit_code == 137, result
    assert "memory limit of 96 MiB for all the sandbox's processes together exceeded" in (
        result.stderr
    )
    assert "the sandbox was restarted" in result.stderr
    after = sandbox.run("print('x' in dir())")  # a fresh interpreter: usable, variables gone
    assert after.stdout == "False\n"


def test_no_process_of_a_sandbox_ended_at_its_memory_budget_is_left(sandbox: Sandbox) -> None:
    sandbox.run("print(1)")
    assert sandbox._live.proc is not None
    namespace = os.readlink(f"/proc/{sandbox._live.proc.pid}/ns/mnt")
    assert len(_in_namespace(namespace)) >= 3  # the launcher, PID 1, the interpreter
    sandbox.run(FORK_HOGS)
    # every child goes with the sandbox (killed with it: on a loaded machine the kernel may
    # take a moment to finish them off, so the condition is waited on, within a bound)
    deadline = time.monotonic() + 30
    while (left := _in_namespace(namespace)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []


def test_disk_is_one_bounded_filesystem_and_not_the_host_s(sandbox: Sandbox) -> None:
    before = os.statvfs("/tmp").f_bfree * os.statvfs("/tmp").f_frsize
    result = sandbox.run(FILL_DISK)
    written, error = json.loads(result.stdout)
    assert error == "ENOSPC"
    assert 24 * MIB <= written <= 32 * MIB
    # /tmp and /dev/shm are the same disk: it is full for them too
    full = sandbox.run(
        "import os\nfor p in ('/tmp/x', '/dev/shm/x'):\n"
        "    try:\n        open(p, 'wb').write(b'y' * 2**20)\n"
        "    except OSError as e:\n        print(p, e.strerror)"
    )
    assert full.stdout.count("No space left on device") == 2, full
    after = os.statvfs("/tmp").f_bfree * os.statvfs("/tmp").f_frsize
    assert before - after < 16 * MIB  # nothing of it on the host's disk (others may write)
    sandbox.close()
    again, _ = json.loads(sandbox.run(FILL_DISK).stdout)  # a fresh sandbox, an empty disk
    assert again >= 24 * MIB


def test_processes_are_bounded_for_the_sandbox(sandbox: Sandbox) -> None:
    code = (
        "import os, time\nmade = 0\ntry:\n    for _ in range(40):\n"
        "        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n"
        "        made += 1\nexcept OSError as exc:\n    print(made, exc.strerror)"
    )
    result = sandbox.run(code)
    made, _, why = result.stdout.partition(" ")
    assert int(made) < 12 and "Resource temporarily unavailable" in why, result


def test_cpu_time_of_the_episode_counts_every_process(way) -> None:
    limits = SandboxLimits(memory_mb=128, cpu_budget_s=2, cpu_s=30, timeout_s=60, processes=12)
    box = Sandbox(limits)
    try:
        burn = (
            "import os\nfor _ in range(3):\n    if os.fork() == 0:\n"
            "        while True:\n            pass\nos.wait()"
        )
        result = box.run(burn)
        assert "CPU budget of 2 s for the episode exceeded" in result.stderr, result
    finally:
        box.close()


def test_output_kept_is_bounded() -> None:
    box = Sandbox(SandboxLimits(output_bytes=1000))
    try:
        out = box.run("print('z' * 100_000)").stdout
    finally:
        box.close()
    assert len(out) < 1100 and "more bytes of output not shown" in out


def test_limits_come_from_the_manifest_then_the_variables() -> None:
    limits = SandboxLimits.for_package("coding_env", {})
    assert (limits.memory_mb, limits.disk_mb) == (512, 256)
    again = SandboxLimits.for_package("coding_env", {"CODING_MEMORY_MB": "300"})
    assert again.memory_mb == 300
    with pytest.raises(ValueError, match="CODING_DISK_MB must be a number"):
        SandboxLimits.for_package("coding_env", {"CODING_DISK_MB": "lots"})


def _in_namespace(link: str) -> list[int]:
    """Live processes in the mount namespace ``link`` (a sandbox's)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/ns/mnt") == link:
                found.append(int(pid))
        except OSError:
            continue
    return found
