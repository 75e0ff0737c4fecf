"""What isolation coding_env's sandboxes get on this machine, and the command that applies it.

:func:`isolation` answers once per process (the probes are cached): which user the code runs
as (its own uid when the server is root, else the server's user), whether it gets namespaces
of its own (private ``/tmp`` and ``/dev/shm``, its own processes and IPC, the host's files
read-only: see ``launcher.py``) and whether it gets a network namespace. Both are probed by
starting the launcher once, as a sandbox would, and looking at what the code got. Where the
namespaces cannot be made, no code runs (:class:`SandboxUnavailable` says why and how to allow
them) unless the operator set ``CODING_ALLOW_UNISOLATED=on``; likewise for the network unless
``CODING_NETWORK=on``. :func:`launch_command` is the launcher's command line that every sandbox
process starts behind (the REPL runner, or a program spawned in a sandbox: a Jupyter kernel).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

LAUNCHER_SOURCE = Path(__file__).with_name("launcher.py").read_text(encoding="utf-8")
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
NOBODY = 65534
_PROBE_DISK_MB = 1
log = logging.getLogger(__name__)


class SandboxUnavailable(RuntimeError):
    """The machine offers no way to run code safely (the message says what is missing)."""


@dataclass(frozen=True)
class Isolation:
    """How sandboxes are isolated on this machine.

    ``users``: "uid" (the server runs as root; each sandbox gets a uid of its own) or "rlimit"
    (sandboxes run as the server's user). ``network``: "namespace" (a network namespace of
    its own), "user namespace" (a user and a network namespace of its own: no root needed) or
    "host" (``CODING_NETWORK=on``: the code uses the server's network). ``python``: the
    interpreter that runs the code. ``private``: the code runs in namespaces of its own
    (mount, IPC and PID: private ``/tmp`` and ``/dev/shm``, no process of the host in sight);
    false only where they cannot be made and ``CODING_ALLOW_UNISOLATED=on`` allowed that.
    """

    users: str
    network: str
    python: str
    private: bool = True


def isolation(network: bool = False, allow_unisolated: bool = False) -> Isolation:
    """How a sandbox runs here; raises :class:`SandboxUnavailable` if it cannot run safely.

    A probe checks that a sandbox really gets its namespaces (and, without ``network``, a
    network namespace); if it cannot, no code runs and the error says how to allow it. With
    ``allow_unisolated``, code runs without the private namespaces where they cannot be made
    (a warning is logged), still without network unless ``network``.
    """
    users, python = _user_isolation()
    root = users == "uid"
    try:
        way = _namespaces(python, root, network)
    except SandboxUnavailable as exc:
        if not allow_unisolated:
            raise
        _warn_unisolated(str(exc))
        way = "host" if network else _network_only(python, root)
        return Isolation(users, way, python, private=False)
    return Isolation(users, "host" if network else way, python)


def sandbox_python() -> str:
    """The interpreter sandboxed programs run on (packages a submission imports go there)."""
    return _user_isolation()[1]


@functools.cache
def _user_isolation() -> tuple[str, str]:
    """("uid", python) when running as root, else ("rlimit", python)."""
    if os.geteuid() != 0:
        return "rlimit", sys.executable
    for candidate in _python_candidates():
        if _runs_unprivileged(candidate):
            return "uid", candidate
    raise SandboxUnavailable(
        "coding_env runs code as an unprivileged user when the server runs as root, and no "
        "Python interpreter usable by other users was found: install python3 system-wide "
        "(e.g. apt-get install python3) or run the server as a non-root user"
    )


_KINDS = ("net", "user", "mnt", "pid", "ipc")
_PROBE = (
    "import json, os\n"
    f"ns = {{kind: os.readlink('/proc/self/ns/' + kind) for kind in {_KINDS!r}}}\n"
    "open('probe.txt', 'w').close()\n"
    "tmp = os.statvfs('/tmp')\n"
    "print(json.dumps({'ns': ns, 'tmp': tmp.f_blocks * tmp.f_frsize,\n"
    "                  'wrote': os.path.exists(os.path.join(os.getcwd(), 'probe.txt'))}))\n"
)


@functools.cache
def _namespaces(python: str, root: bool, network: bool) -> str:
    """Probe the private namespaces (and the network namespace unless ``network``); return
    "namespace" (made as root) or "user namespace"."""
    seen, reason = _probe(python, root, network, private=True)
    if seen is not None:
        return seen
    if not network and _probe(python, root, network=True, private=True)[0] is not None:
        raise SandboxUnavailable(_NO_NETWORK_ISOLATION.format(reason=reason))
    extra = "" if network else _NETWORK_TOO
    raise SandboxUnavailable(_NO_NAMESPACES.format(reason=reason, network=extra))


@functools.cache
def _network_only(python: str, root: bool) -> str:
    """Without the private namespaces (allowed unisolated): the network namespace alone."""
    seen, reason = _probe(python, root, network=False, private=False)
    if seen is None:
        raise SandboxUnavailable(_NO_NETWORK_ISOLATION.format(reason=reason))
    return seen


def _probe(python: str, root: bool, network: bool, private: bool) -> tuple[str | None, str]:
    """Start the launcher once as a sandbox would; (how, "") if the code got what it should,
    else (None, why not)."""
    uid = NOBODY if root else None
    host_dir = None
    if private:  # the launcher makes the working directory on the sandbox's own tmpfs
        workdir = f"/tmp/openenv-code-probe-{secrets.token_hex(8)}"
        options: dict | None = {"workdir": workdir, "disk_mb": _PROBE_DISK_MB}
        cwd = "/"
    else:
        workdir = host_dir = tempfile.mkdtemp(prefix="openenv-code-probe-")
        options, cwd = None, workdir
        if uid is not None:
            os.chown(workdir, uid, uid)
    try:
        result = subprocess.run(
            [*launch_command(python, uid, network, options), python, "-I", "-c", _PROBE],
            cwd=cwd,
            env={"PATH": SAFE_PATH},
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, str(exc)
    finally:
        if host_dir is not None:
            shutil.rmtree(host_dir, ignore_errors=True)
    reason = result.stderr.strip() or f"the probe exited with status {result.returncode}"
    try:
        seen = json.loads(result.stdout)
        theirs = seen["ns"]
    except (ValueError, TypeError, KeyError):
        return None, reason
    mine = {kind: os.readlink(f"/proc/self/ns/{kind}") for kind in _KINDS}
    missing = [] if network else [kind for kind in ("net",) if theirs[kind] == mine[kind]]
    if private:
        missing += [kind for kind in ("mnt", "pid", "ipc") if theirs[kind] == mine[kind]]
        if seen["tmp"] > _PROBE_DISK_MB * 2**20 or not seen.get("wrote"):
            missing.append("a private /tmp holding the working directory")
    if result.returncode != 0 or missing:
        return None, reason if result.returncode != 0 else f"not isolated: {', '.join(missing)}"
    return ("namespace" if theirs["user"] == mine["user"] else "user namespace"), ""


_NO_NETWORK_ISOLATION = (
    "coding_env cuts the code off the network (CODING_NETWORK=off, the default) and could not "
    "do so on this machine ({reason}). Either run the server as root with CAP_SYS_ADMIN (e.g. "
    "outside a container, or docker run --cap-add SYS_ADMIN), or allow unprivileged user "
    "namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0), "
    "or set CODING_NETWORK=on to let the code use the network"
)
_NO_NAMESPACES = (
    "coding_env runs code in namespaces of its own (private /tmp and /dev/shm, its own "
    "processes, the host's files read-only{network}) and could not create them on this machine "
    "({reason}). Either run the server as root with CAP_SYS_ADMIN (e.g. outside a container, or "
    "docker run --cap-add SYS_ADMIN --security-opt apparmor=unconfined), or allow unprivileged "
    "user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces "
    "> 0), or set CODING_ALLOW_UNISOLATED=on to run code without them, which is unsafe: the "
    "code can then fill the host's /tmp and /dev/shm, write wherever its user may, and, unless "
    "the server runs as root, signal the server and other sessions' processes"
)
_NETWORK_TOO = ", no network (CODING_NETWORK=off)"


@functools.cache
def _warn_unisolated(reason: str) -> None:
    log.warning(
        "CODING_ALLOW_UNISOLATED=on: coding_env runs code without namespaces, because: %s",
        reason,
    )


def launch_command(
    python: str,
    uid: int | None,
    network: bool,
    private: dict | None = None,
    rlimits: dict[str, int] | None = None,
    watch: dict | None = None,
    loopback: bool = False,
) -> list[str]:
    """The launcher's command line; the program to exec follows it. ``private``: None (no
    mount, IPC and PID namespaces) or ``{"workdir": path under /tmp, "disk_mb": size}``;
    ``rlimits``: None (the program sets its own, as the REPL runner does) or the limits the
    launcher sets before it execs the program; ``watch``: the ``lifeline``, ``report``,
    ``files`` and ``budget`` options; ``loopback``: bring up the network namespace's own
    loopback interface (see ``launcher.py``)."""
    options = {"uid": uid, "network": network, "private": private, "rlimits": rlimits}
    options["loopback"] = loopback
    options.update(watch or {})
    return [python, "-I", "-c", LAUNCHER_SOURCE, json.dumps(options)]


def _python_candidates() -> list[str]:
    names = [sys.executable, "/usr/local/bin/python3", "/usr/bin/python3", shutil.which("python3")]
    seen: list[str] = []
    for name in names:
        if name and os.path.exists(name) and os.path.realpath(name) not in seen:
            seen.append(os.path.realpath(name))
    return seen


def _runs_unprivileged(python: str) -> bool:
    probe = "import ctypes, json, linecache, resource, tempfile, traceback"
    try:
        result = subprocess.run(
            [python, "-I", "-c", probe],
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
            cwd="/",
            env={"PATH": SAFE_PATH},
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0
