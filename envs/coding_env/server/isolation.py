"""What isolation coding_env's sandboxes get on this machine, and the command that applies it.

:func:`isolation` answers once per process (the probes are cached): which user the code runs
as (its own uid when the server is root, else the server's user) and whether it gets a network
namespace of its own (``launcher.py``, probed by starting it once). :func:`launch_command` is
the launcher's command line that every sandbox interpreter starts behind.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LAUNCHER_SOURCE = Path(__file__).with_name("launcher.py").read_text(encoding="utf-8")
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
NOBODY = 65534


class SandboxUnavailable(RuntimeError):
    """The machine offers no way to run code safely (the message says what is missing)."""


@dataclass(frozen=True)
class Isolation:
    """How sandboxes are isolated on this machine.

    ``users``: "uid" (the server runs as root; each sandbox gets a uid of its own) or "rlimit"
    (sandboxes run as the server's user). ``network``: "namespace" (a network namespace of
    its own), "user namespace" (a user and a network namespace of its own: no root needed) or
    "host" (``CODING_NETWORK=on``: the code uses the server's network). ``python``: the
    interpreter that runs the code.
    """

    users: str
    network: str
    python: str


def isolation(network: bool = False) -> Isolation:
    """How a sandbox runs here; raises :class:`SandboxUnavailable` if it cannot run safely.

    Without ``network``, a probe checks that a sandbox really gets a network namespace of its
    own; if it cannot, no code runs and the error says how to allow it.
    """
    users, python = _user_isolation()
    if network:
        return Isolation(users, "host", python)
    return Isolation(users, _network_isolation(python, root=users == "uid"), python)


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


_NAMESPACES_PROBE = (
    "import os; print(os.readlink('/proc/self/ns/net'), os.readlink('/proc/self/ns/user'))"
)


@functools.cache
def _network_isolation(python: str, root: bool) -> str:
    """Start the launcher once as a sandbox would and see which namespaces the code gets."""
    probe = [python, "-I", "-c", _NAMESPACES_PROBE]
    uid = NOBODY if root else None
    try:
        result = subprocess.run(
            launch_command(python, uid, network=False) + probe,
            cwd="/",
            env={"PATH": SAFE_PATH},
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailable(_NO_NETWORK_ISOLATION.format(reason=exc)) from None
    seen = result.stdout.split()
    mine = [os.readlink(f"/proc/self/ns/{kind}") for kind in ("net", "user")]
    if result.returncode != 0 or len(seen) != 2 or seen[0] == mine[0]:
        reason = result.stderr.strip() or f"the probe exited with status {result.returncode}"
        raise SandboxUnavailable(_NO_NETWORK_ISOLATION.format(reason=reason))
    return "namespace" if seen[1] == mine[1] else "user namespace"


_NO_NETWORK_ISOLATION = (
    "coding_env cuts the code off the network (CODING_NETWORK=off, the default) and could not "
    "do so on this machine ({reason}). Either run the server as root with CAP_SYS_ADMIN (e.g. "
    "outside a container, or docker run --cap-add SYS_ADMIN), or allow unprivileged user "
    "namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0), "
    "or set CODING_NETWORK=on to let the code use the network"
)


def launch_command(python: str, uid: int | None, network: bool) -> list[str]:
    """The launcher's command line; the program to exec follows it."""
    options = json.dumps({"uid": uid, "network": network})
    return [python, "-I", "-c", LAUNCHER_SOURCE, options]


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
