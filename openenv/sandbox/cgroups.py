"""One control group per sandbox, where the kernel lets this server make one.

A sandbox's memory budget covers all its processes together. The kernel enforces that with a
control group (cgroup): :func:`create` makes one for a sandbox under the server's own cgroup
(so whatever limits the server itself lives under still apply), with a memory limit (no swap),
a process limit and CPU accounting. The sandbox's launcher joins it before it starts anything,
so every process of the sandbox is in it; when the group runs out of memory the kernel's OOM
killer ends a process of it, and the launcher ends the rest (see ``launcher.py``).

Both hierarchies are handled:

* cgroup v2 (the unified hierarchy): one directory with ``memory.max``, ``memory.swap.max``,
  ``memory.oom.group`` (the kernel kills the whole group at once), ``pids.max``, and
  ``cgroup.kill`` to end it; the server's cgroup must delegate the ``memory`` and ``pids``
  controllers (``cgroup.subtree_control``);
* cgroup v1 (one hierarchy per controller, as on hosts and VMs that mount the legacy layout):
  one directory in each of ``memory`` (``memory.limit_in_bytes``, and
  ``memory.memsw.limit_in_bytes`` where swap is accounted), ``pids`` (``pids.max``) and
  ``cpuacct``, when those are mounted writable.

Where neither is writable (a server that does not run as root, most containers without a
delegated cgroup), :func:`create` returns ``None`` and the launcher measures instead (see
``launcher.py``: it adds up the proportional set size of the sandbox's processes and ends the
sandbox past its budget).

A cgroup is removed by the launcher when the sandbox ends (whoever ends it), else by
:meth:`SandboxCgroup.remove` at close; one left behind by an owner that was killed before its
launcher could remove it is removed by the next :func:`create` on the machine (its name holds
its owner's pid).
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "openenv-sandbox-"
V1_CONTROLLERS = ("memory", "pids", "cpuacct")


@dataclass(frozen=True)
class SandboxCgroup:
    """The cgroup directories of one sandbox (one for v2, one per controller for v1)."""

    version: int
    dirs: tuple[str, ...]
    memory_dir: str
    cpu_dir: str | None
    pids_dir: str | None = None
    extra: dict = field(default_factory=dict)

    def launcher_options(self) -> dict:
        """What the launcher needs: the directories to join, where OOM kills are counted and
        where CPU time is read."""
        events = "memory.events" if self.version == 2 else "memory.oom_control"
        cpu = None
        if self.cpu_dir is not None:
            cpu = os.path.join(self.cpu_dir, "cpu.stat" if self.version == 2 else "cpuacct.usage")
        return {
            "version": self.version,
            "dirs": list(self.dirs),
            "events": os.path.join(self.memory_dir, events),
            "cpu": cpu,
        }

    def kill(self) -> None:
        """SIGKILL every process in the group (``cgroup.kill`` on v2, a sweep on v1)."""
        if self.version == 2:
            with contextlib.suppress(OSError):
                Path(self.memory_dir, "cgroup.kill").write_text("1")
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for directory in self.dirs:
            with contextlib.suppress(OSError):
                text = Path(directory, "cgroup.procs").read_text()
                found.update(int(line) for line in text.split())
        return sorted(found)

    def remove(self) -> None:
        """Kill what is left in the group and remove its directories (idempotent)."""
        if not any(os.path.isdir(d) for d in self.dirs):
            return
        self.kill()
        for directory in self.dirs:
            _rmdir(directory)


def _rmdir(directory: str) -> None:
    for _ in range(100):  # the kernel frees a group a moment after its last process
        try:
            os.rmdir(directory)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def create(name_hint: str, memory_bytes: int, processes: int) -> SandboxCgroup | None:
    """A new cgroup for one sandbox with these limits, or None where none can be made."""
    layout = _layout()
    if layout is None:
        return None
    version, bases = layout
    _sweep(bases)
    name = f"{PREFIX}{os.getpid()}-{name_hint}-{secrets.token_hex(4)}"
    made: list[str] = []
    try:
        if version == 2:
            return _create_v2(bases["unified"], name, memory_bytes, processes, made)
        return _create_v1(bases, name, memory_bytes, processes, made)
    except OSError:
        for directory in made:
            _rmdir(directory)
        return None


def _create_v2(base: str, name: str, memory: int, processes: int, made: list[str]) -> SandboxCgroup:
    path = os.path.join(base, name)
    os.mkdir(path, 0o755)
    made.append(path)
    _write(path, "memory.max", memory)
    with contextlib.suppress(FileNotFoundError):  # no swap accounting: nothing to swap to
        _write(path, "memory.swap.max", 0)
    _write(path, "memory.oom.group", 1)
    _write(path, "pids.max", processes)
    return SandboxCgroup(2, (path,), path, path, path)


def _create_v1(
    bases: dict[str, str], name: str, memory: int, processes: int, made: list[str]
) -> SandboxCgroup:
    dirs: dict[str, str] = {}
    for controller, base in bases.items():
        path = os.path.join(base, name)
        os.mkdir(path, 0o755)
        made.append(path)
        dirs[controller] = path
    memory_dir = dirs["memory"]
    _write(memory_dir, "memory.limit_in_bytes", memory)
    with contextlib.suppress(OSError):  # only where swap is accounted
        _write(memory_dir, "memory.memsw.limit_in_bytes", memory)
    if "pids" in dirs:
        _write(dirs["pids"], "pids.max", processes)
    return SandboxCgroup(1, tuple(made), memory_dir, dirs.get("cpuacct"), dirs.get("pids"))


def _write(directory: str, name: str, value: int) -> None:
    Path(directory, name).write_text(str(value))


@functools.cache
def _layout() -> tuple[int, dict[str, str]] | None:
    """(version, {controller: the server's own writable cgroup directory}), or None."""
    if os.geteuid() != 0 or os.environ.get("OPENENV_SANDBOX_CGROUPS", "on") == "off":
        return None
    own = _own_cgroups()
    v2 = _v2_base(own.get(""))
    if v2 is not None:
        return 2, {"unified": v2}
    bases = {}
    for controller in V1_CONTROLLERS:
        mount = ROOT / controller
        relative = own.get(controller)
        if relative is None or not (mount / "cgroup.procs").is_file():
            continue
        path = str(mount / relative.lstrip("/"))
        if os.access(path, os.W_OK):
            bases[controller] = path
    return (1, bases) if "memory" in bases else None


def _own_cgroups() -> dict[str, str]:
    """Controller name -> this process's cgroup path ("" is the unified hierarchy)."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                found[controller] = path
    return found


def _v2_base(relative: str | None) -> str | None:
    """The server's own v2 cgroup, if it may make children with memory and pids limits."""
    if relative is None:
        return None
    mount = ROOT if (ROOT / "cgroup.controllers").is_file() else ROOT / "unified"
    path = mount / relative.lstrip("/")
    try:
        delegated = (path / "cgroup.subtree_control").read_text().split()
    except OSError:
        return None
    if not {"memory", "pids"} <= set(delegated) or not os.access(path, os.W_OK):
        return None
    return str(path)


def _sweep(bases: dict[str, str]) -> None:
    """Remove sandbox cgroups whose owner process is gone (it was killed before its
    launchers could remove them)."""
    for base in bases.values():
        with contextlib.suppress(OSError):
            for entry in os.scandir(base):
                if entry.name.startswith(PREFIX) and not _owner_alive(entry.name):
                    SandboxCgroup(1, (entry.path,), entry.path, None).remove()


def _owner_alive(name: str) -> bool:
    try:
        pid = int(name[len(PREFIX) :].split("-", 1)[0])
    except ValueError:
        return True
    return os.path.exists(f"/proc/{pid}")
