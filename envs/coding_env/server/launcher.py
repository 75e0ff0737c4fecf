"""The first stage of a coding_env sandbox: cut the network, drop root, then exec the runner.

Not imported by the server: :mod:`coding_env.server.sandbox` runs this file's source with
``python -I -c <source> <options json> <program> <args>...``. Options: ``uid`` (the sandbox's
uid when the server runs as root, else null) and ``network`` (false: no network). Standard
library only, so any Python 3.8+ interpreter can run it.

Without network, the process enters a network namespace of its own, which holds nothing but a
loopback interface that is down: no route leads out, and the host's loopback services (the
server itself among them) are out of reach. Two ways, tried in this order:

1. ``unshare(CLONE_NEWNET)``, then drop root: needs ``CAP_SYS_ADMIN`` (root outside most
   containers). The code keeps no capability, so it cannot bring an interface up.
2. Drop root first (if root), then ``unshare(CLONE_NEWUSER | CLONE_NEWNET)`` with the uid and
   gid mapped to themselves: needs unprivileged user namespaces. ``exec`` of the runner then
   clears the capabilities the new user namespace gave, since the uid is not 0 in it.

On failure nothing runs: one line on stderr and exit status 125.
"""

import ctypes
import json
import os
import sys

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
EXIT_FAILED = 125


def unshare(flags):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def drop_root(uid):
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def own_user_and_network_namespace():
    uid, gid = os.getuid(), os.getgid()
    unshare(CLONE_NEWUSER | CLONE_NEWNET)
    write("/proc/self/setgroups", "deny")
    write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    write("/proc/self/gid_map", f"{gid} {gid} 1\n")


def isolate(uid):
    """Enter a network namespace of our own; return with root dropped when ``uid`` is given."""
    try:
        unshare(CLONE_NEWNET)
    except OSError as first:
        if uid is not None:
            drop_root(uid)
        try:
            own_user_and_network_namespace()
        except OSError as second:
            raise OSError(
                second.errno,
                f"unshare(CLONE_NEWNET): {first.strerror}; "
                f"unshare(CLONE_NEWUSER | CLONE_NEWNET): {second.strerror}",
            ) from None
        return
    if uid is not None:
        drop_root(uid)


def main():
    options = json.loads(sys.argv[1])
    program = sys.argv[2:]
    uid = options["uid"]
    try:
        if not options["network"]:
            isolate(uid)
        elif uid is not None:
            drop_root(uid)
    except OSError as exc:
        print(f"sandbox: could not isolate the code: {exc.strerror}", file=sys.stderr)
        os._exit(EXIT_FAILED)
    os.execv(program[0], program)


if __name__ == "__main__":
    main()
