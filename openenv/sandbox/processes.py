"""The processes of a sandbox: its launcher's pipes and report (:class:`Live`), its uid, a
clean environment, and the ending of every process it started (by uid, or by process group),
then the removal of its working directory. Used by :class:`~openenv.sandbox.sandbox.Sandbox`."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable

from openenv.sandbox import cgroups
from openenv.sandbox.isolation import SAFE_PATH, SandboxUnavailable
from openenv.sandbox.limits import SandboxLimits

_UID_RANGE = (1_000_000, 2_000_000_000)
_PR_SET_DUMPABLE = 4


class Live:
    """What a running sandbox holds on the server: its launcher process, pipes and cgroup.

    Kept apart from :class:`Sandbox` so that the sandbox's finalizer can release it without
    keeping the sandbox alive."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.cmd = self.res = -1  # the REPL's pipes
        self.lifeline = self.report = -1
        self.launcher_ends: list[int] = []
        self.cgroup: cgroups.SandboxCgroup | None = None
        self.host_dir: str | None = None  # a working directory on the host (unisolated only)
        self.reason = ""  # why the launcher ended the sandbox (its report), if it did

    def close_launcher_ends(self) -> None:
        for fd in self.launcher_ends:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.launcher_ends = []

    def collect_report(self) -> None:
        """Read the launcher's report, if it wrote one (it does before it exits)."""
        if self.report < 0 or self.reason:
            return
        try:
            os.set_blocking(self.report, False)
            self.reason = str(json.loads(os.read(self.report, 4096))["reason"])
        except (OSError, ValueError, KeyError, TypeError):
            pass

    def read_report(self, limits: SandboxLimits) -> str:
        """The launcher's reason for ending the sandbox, as a sentence ("" if none)."""
        self.collect_report()
        if self.reason == "memory":
            return (
                f"memory limit of {limits.memory_mb} MiB for all the sandbox's processes "
                "together exceeded"
            )
        if self.reason == "cpu":
            return f"CPU budget of {limits.cpu_budget_s} s for the episode exceeded"
        return ""

    def release(self) -> None:
        """Without waiting: let the launcher end the sandbox (the lifeline closes), close the
        pipes. What a dropped sandbox's finalizer does."""
        self._close_fds("lifeline", "cmd", "res", "report")
        self.close_launcher_ends()
        if self.host_dir is not None:
            remove_tree(self.host_dir)
            self.host_dir = None

    def stop(self, uid: int | None, wait_s: float = 3.0) -> None:
        """End the sandbox and wait for it (a few seconds at most), then release everything."""
        proc = self.proc
        if proc is not None:
            self._close_fds("lifeline")  # the launcher kills the namespace's PID 1 at once
            watched = self.report >= 0  # a private sandbox, whose launcher watches it
            if watched:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=wait_s)
            if not watched or proc.poll() is None:
                kill_everything(proc, uid, self.cgroup)
            self.collect_report()
            self.proc = None
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        self.release()

    def _close_fds(self, *names: str) -> None:
        for name in names:
            fd = getattr(self, name)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(self, name, -1)


def kill_everything(
    proc: subprocess.Popen[bytes], uid: int | None, group: cgroups.SandboxCgroup | None
) -> None:
    """Kill the launcher and everything the sandbox started, whatever state it is in."""
    leader = proc.pid
    if group is not None:
        group.kill()
    if uid is not None:
        kill_every_process_of(uid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(leader, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    if uid is not None:
        _kill_until_gone(lambda pid, owner, pgrp: owner == uid)
    else:
        _kill_until_gone(lambda pid, owner, pgrp: pgrp == leader)


# -- isolation ----------------------------------------------------------------------------------

UIDS_IN_USE: set[int] = set()


def allocate_uid() -> int:
    while True:
        uid = random.randint(*_UID_RANGE)
        if uid not in UIDS_IN_USE and not pids(functools.partial(_owned_by, uid)):
            UIDS_IN_USE.add(uid)
            return uid


def _owned_by(uid: int, pid: int, owner: int, pgrp: int) -> bool:
    return owner == uid


@functools.cache
def protect_server_process() -> None:
    """Make the server non-dumpable: its ``/proc/<pid>`` files (``environ`` among them) then
    belong to root, so a sandbox running under the same uid cannot read the server's secrets."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise SandboxUnavailable(
            f"could not hide the server's environment from sandboxes (prctl failed: "
            f"{os.strerror(ctypes.get_errno())}); run the server as root to isolate sandboxes"
        )


def clean_environment(workdir: str) -> dict[str, str]:
    return {
        "PATH": SAFE_PATH,
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }


def pids(match: Callable[[int, int, int], bool]) -> list[int]:
    """Live processes (not zombies) for which ``match(pid, uid, process group)`` holds."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            owner = entry.stat().st_uid
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # the process ended while we looked
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields[0] not in (b"Z", b"X") and match(pid, owner, int(fields[2])):
            found.append(pid)
    return found


def _kill_until_gone(match: Callable[[int, int, int], bool], rounds: int = 200) -> None:
    for _ in range(rounds):
        found = pids(match)
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


def kill_every_process_of(uid: int) -> None:
    """``kill -KILL -1`` as ``uid``: one atomic sweep, even for processes that left the group."""
    kill = shutil.which("kill", path=SAFE_PATH)
    if kill is None:
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            [kill, "-KILL", "-1"],
            user=uid,
            group=uid,
            extra_groups=[],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={"PATH": SAFE_PATH},
            timeout=10,
        )


def remove_tree(path: str) -> None:
    """Remove a working directory on the host, even one the code made read-only; never
    touches anything above ``path`` (nor fails when it is gone already)."""
    top = os.path.abspath(path)

    def retry(func: Callable, target: str, _info: object) -> None:
        parent = os.path.dirname(os.path.abspath(target))
        with contextlib.suppress(OSError):
            if parent == top or parent.startswith(top + os.sep):
                os.chmod(parent, 0o700)
            os.chmod(target, 0o700)
            func(target)

    if os.path.lexists(path):
        shutil.rmtree(path, onerror=retry)
