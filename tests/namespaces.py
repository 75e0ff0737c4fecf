"""Run a Python program where the kernel refuses one kind of new namespace: in a user namespace
of its own (uids mapped to themselves) whose ``user.max_<kind>_namespaces`` is 0. Needs root.

``[sys.executable, "-c", without_namespaces("mnt"), program]`` runs ``program`` there (the
coding sandbox's fallbacks are tested this way).
"""

from __future__ import annotations

_LAUNCHER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
ready_r, ready_w = os.pipe()
go_r, go_w = os.pipe()
pid = os.fork()
if pid == 0:
    if libc.unshare(0x10000000) != 0:
        os._exit(99)
    os.write(ready_w, b".")
    os.read(go_r, 1)
    with open("/proc/sys/user/max_KIND_namespaces", "w") as f:
        f.write("0")
    os.execv(sys.executable, [sys.executable, "-c", sys.argv[1]])
os.read(ready_r, 1)
for name in ("uid_map", "gid_map"):
    with open(f"/proc/{pid}/{name}", "w") as f:
        f.write("0 0 4294967295")
os.write(go_w, b".")
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def without_namespaces(kind: str) -> str:
    """The launcher program for ``kind`` (``"mnt"``, ``"net"``, ...)."""
    return _LAUNCHER.replace("KIND", kind)
