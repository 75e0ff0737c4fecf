"""The first stage of a sandbox: namespaces, private mounts, drop root, exec the program.

Not imported by the server: :mod:`openenv.sandbox.sandbox` runs this file's source with
``python -I -c <source> <options json> <program> <args>...``. Options: ``uid`` (the sandbox's
uid when the server runs as root, else null), ``network`` (false: no network), ``private``
(null, or ``{"workdir": path, "tmp_mb": n}``: the sandbox gets the namespaces below) and
``rlimits`` (optional: null, or resource limits by name, ``{"as": bytes, "fsize": bytes,
"nproc": n, "nofile": n, "cpu": seconds}``, set just before the program is exec'd, with no core
dumps and ``SIGXFSZ`` ignored; the REPL runner sets its own, so it is started without them,
while a program that cannot, such as a Jupyter kernel, is started with them). The program is
``runner.py`` (the REPL) or any other program a sandbox spawns. Standard library only, so any
Python 3.8+ interpreter can run it.

With ``private``, the code gets namespaces of its own, made in one of two ways, tried in order:

1. As root: ``unshare(CLONE_NEWNS | CLONE_NEWIPC [| CLONE_NEWNET])``, which needs
   ``CAP_SYS_ADMIN`` (root outside most containers); root is dropped to ``uid`` once the
   mounts below are made, so the code keeps no capability.
2. As an unprivileged user (root dropped first, if root): the same plus ``CLONE_NEWUSER``, the
   uid and gid mapped to themselves. ``exec`` of the runner then clears the capabilities the
   new user namespace gave, since the uid is not 0 in it.

In the new mount namespace (propagation made private, so nothing leaks back to the host):

* every mount is made read-only (``mount_setattr(AT_RECURSIVE)``, or a remount of each mount
  on kernels older than 5.12): the code cannot write anywhere on the host's filesystems...
* ...but in its working directory, bind-mounted back read-write at its own path; the
  directory that holds the working directories of all sandboxes is covered by an empty tmpfs
  first (``/tmp`` is anyway), so other sessions' directories are not even visible;
* ``/tmp`` and ``/dev/shm`` are fresh tmpfs mounts of ``tmp_mb`` MiB each (``mode=1777``,
  ``nosuid``, ``nodev``, a bounded number of inodes): a write beyond that fails with
  ``ENOSPC``, and the tmpfs vanishes with the namespace when the sandbox ends;
* a new IPC namespace: System V shared memory and POSIX message queues vanish with it too.

Then ``unshare(CLONE_NEWPID)`` and a fork: the child is PID 1 of a new PID namespace, mounts a
fresh ``/proc`` for it, drops root, and forks the runner (PID 2), whose every process stays in
that namespace: the code can neither see nor signal any process outside (the server, other
sessions), and ``kill(-1)`` reaches only its own. PID 1 reaps orphans and, when the runner
ends, passes its wait status on and exits, which makes the kernel kill whatever is left in the
namespace. The first process (this one, outside the namespace) waits for PID 1 and ends the
same way as the runner (the same exit status, or killed by the same signal), so the server
sees the runner's fate.

With ``network`` false, the namespaces include a network namespace, which holds nothing but a
loopback interface that is down: no route leads out, and the host's loopback services (the
server itself among them) are out of reach. Without ``private`` (the operator allowed
unisolated code where namespaces cannot be made), only that network namespace is made, as
above, and the runner is exec'd directly.

On failure nothing runs: one line on stderr and exit status 125.
"""

import ctypes
import json
import os
import resource
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_NOATIME = 0x400
MS_NODIRATIME = 0x800
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MS_RELATIME = 0x200000
SYS_MOUNT_SETATTR = 442  # the same number on every architecture but alpha
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1
PR_SET_DUMPABLE = 4
EXIT_FAILED = 125
FRESH = ("/tmp", "/dev/shm")  # a tmpfs of their own, if they exist

libc = ctypes.CDLL(None, use_errno=True)


class MountAttr(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("set", "clr", "propagation", "userns_fd")]


def check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def unshare(flags, what):
    check(libc.unshare(flags), what)


def mount(source, target, fstype, flags, data=None):
    encode = [None if x is None else x.encode() for x in (source, target, fstype, data)]
    result = libc.mount(encode[0], encode[1], encode[2], ctypes.c_ulong(flags), encode[3])
    check(result, f"mount {fstype or source or ''} on {target}")


def drop_root(uid):
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


# -- namespaces ---------------------------------------------------------------------------------


def enter_namespaces(uid, network, private):
    """Enter the namespaces the sandbox needs (not yet the PID namespace); return how.

    "root" when made with this process's privileges (root still to be dropped to ``uid``),
    "user" when made in a user namespace of our own (root, if any, already dropped).
    """
    flags = 0 if network else CLONE_NEWNET
    if private:
        flags |= CLONE_NEWNS | CLONE_NEWIPC
    names = flag_names(flags)
    try:
        unshare(flags, f"unshare({names})")
        return "root"
    except OSError as first:
        if uid is not None:
            drop_root(uid)
        try:
            own_user_namespace(flags, f"unshare(CLONE_NEWUSER | {names})")
        except OSError as second:
            raise OSError(second.errno, f"{first.strerror}; {second.strerror}") from None
    return "user"


def flag_names(flags):
    known = {"CLONE_NEWNS": CLONE_NEWNS, "CLONE_NEWIPC": CLONE_NEWIPC, "CLONE_NEWNET": CLONE_NEWNET}
    return " | ".join(name for name, flag in known.items() if flags & flag)


def own_user_namespace(flags, what):
    uid, gid = os.getuid(), os.getgid()
    unshare(CLONE_NEWUSER | flags, what)
    write("/proc/self/setgroups", "deny")
    write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    write("/proc/self/gid_map", f"{gid} {gid} 1\n")


# -- mounts -------------------------------------------------------------------------------------


def private_mounts(workdir, tmp_mb):
    """Read-only host, fresh ``/tmp`` and ``/dev/shm``, the working directory alone writable."""
    if not isinstance(tmp_mb, int) or tmp_mb < 1:
        raise OSError(0, f"the tmpfs size must be a whole number of MiB >= 1, not {tmp_mb!r}")
    workdir = os.path.realpath(workdir)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    keep = os.open(workdir, os.O_PATH | os.O_DIRECTORY)
    set_readonly("/", True, recursive=True)
    fresh = [d for d in FRESH if os.path.isdir(d) and not os.path.islink(d)]
    options = f"size={tmp_mb}m,nr_inodes={max(1024, tmp_mb * 256)},mode=1777"
    for directory in fresh:
        mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, options)
    covered = any(workdir.startswith(d + "/") for d in fresh)
    parent = os.path.dirname(workdir)
    if not covered:  # hide the other sandboxes' directories beside ours
        if parent == "/":
            raise OSError(0, f"the working directory {workdir} must not be at the top of /")
        mount("tmpfs", parent, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=64,mode=755")
    make_mount_point(workdir)
    mount(f"/proc/self/fd/{keep}", workdir, None, MS_BIND)
    set_readonly(workdir, False, recursive=False)
    if not covered:
        set_readonly(parent, True, recursive=False)
    os.close(keep)
    os.chdir(workdir)  # the bind mount, not the hidden directory below it


def make_mount_point(path):
    missing = []
    while not os.path.isdir(path):
        missing.append(path)
        path = os.path.dirname(path)
    for directory in reversed(missing):
        os.mkdir(directory)
        os.chmod(directory, 0o755)  # reachable by the sandbox's uid, whatever the umask


def set_readonly(path, readonly, recursive):
    attr = MountAttr()
    if readonly:
        attr.set = MOUNT_ATTR_RDONLY
    else:
        attr.clr = MOUNT_ATTR_RDONLY
    flags = AT_RECURSIVE if recursive else 0
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(
        ctypes.c_long(SYS_MOUNT_SETATTR),
        ctypes.c_int(AT_FDCWD),
        path.encode(),
        ctypes.c_uint(flags),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    if result == 0:
        return
    if ctypes.get_errno() != 38:  # ENOSYS: a kernel older than 5.12, remount instead
        check(result, f"mount_setattr {path}")
    for point in mount_points(path) if recursive else [path]:
        remount(point, readonly)


def mount_points(top):
    found = []
    with open("/proc/self/mountinfo", "rb") as f:
        for line in f:
            point = line.split()[4].decode()
            for escape, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n")):
                point = point.replace(escape, char)
            point = point.replace("\\134", "\\")
            if point == top or point.startswith(top.rstrip("/") + "/"):
                found.append(point)
    return found


def remount(point, readonly):
    """``MS_REMOUNT | MS_BIND``, keeping the mount's other flags (the kernel may lock them)."""
    try:
        current = os.statvfs(point).f_flag
    except OSError:  # a mount point hidden under another mount: unreachable anyway
        return
    pairs = [
        (os.ST_NOSUID, MS_NOSUID),
        (os.ST_NODEV, MS_NODEV),
        (os.ST_NOEXEC, MS_NOEXEC),
        (os.ST_NOATIME, MS_NOATIME),
        (os.ST_NODIRATIME, MS_NODIRATIME),
        (os.ST_RELATIME, MS_RELATIME),
    ]
    flags = MS_REMOUNT | MS_BIND | (MS_RDONLY if readonly else 0)
    for st, ms in pairs:
        if current & st:
            flags |= ms
    mount(None, point, None, flags)


# -- processes ----------------------------------------------------------------------------------


def run_in_pid_namespace(uid, program, rlimits=None):
    """Fork PID 1 of a new PID namespace, which forks the runner; end as the runner ends."""
    unshare(CLONE_NEWPID, "unshare(CLONE_NEWPID)")
    status_r, status_w = os.pipe()
    init = os.fork()
    if init == 0:
        os.close(status_r)
        try:
            be_init(uid, program, status_w, rlimits)
        except OSError as exc:
            fail(exc)
        os._exit(EXIT_FAILED)
    os.close(status_w)
    close_all_but(status_r)
    if uid is not None:
        drop_root(uid)
    _, init_status = os.waitpid(init, 0)
    with os.fdopen(status_r, "rb") as f:
        reported = f.read()
    end_like(int(reported) if reported else init_status)


def be_init(uid, program, status_w, rlimits=None):
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if uid is not None:
        drop_root(uid)
    check(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl(PR_SET_DUMPABLE)")
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as PID 1: ignored when sent from inside
    runner = os.fork()
    if runner == 0:
        try:
            exec_program(program, rlimits)
        except OSError as exc:
            fail(exc)
        os._exit(EXIT_FAILED)
    close_all_but(status_w)
    while True:  # reap every orphan of the namespace until the runner itself ends
        pid, status = os.waitpid(-1, 0)
        if pid == runner:
            os.write(status_w, str(status).encode())
            os._exit(0)  # the kernel now kills what is left in the namespace


def close_all_but(keep):
    os.closerange(3, keep)
    os.closerange(keep + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def end_like(status):
    """Exit as a process with wait status ``status`` did: same code, or same signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no core dump, not even to a pipe helper
        signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else EXIT_FAILED)


RLIMITS = {
    "as": resource.RLIMIT_AS,
    "fsize": resource.RLIMIT_FSIZE,
    "nproc": resource.RLIMIT_NPROC,
    "nofile": resource.RLIMIT_NOFILE,
    "cpu": resource.RLIMIT_CPU,
}


def exec_program(program, rlimits):
    """Exec ``program`` (argv), under ``rlimits`` (see the module doc) when given."""
    if rlimits:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-big write fails with EFBIG
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for name, value in rlimits.items():
            _, hard = resource.getrlimit(RLIMITS[name])
            value = int(value) if hard == resource.RLIM_INFINITY else min(int(value), hard)
            resource.setrlimit(RLIMITS[name], (value, value))
    os.execv(program[0], program)


def fail(exc):
    print(f"sandbox: could not isolate the code: {exc.strerror}", file=sys.stderr, flush=True)
    os._exit(EXIT_FAILED)


def main():
    options = json.loads(sys.argv[1])
    program = sys.argv[2:]
    uid, network, private = options["uid"], options["network"], options.get("private")
    rlimits = options.get("rlimits")
    try:
        how = None if network and not private else enter_namespaces(uid, network, private)
        if not private:
            if uid is not None and how != "user":
                drop_root(uid)
            exec_program(program, rlimits)
        private_mounts(private["workdir"], private["tmp_mb"])
        run_in_pid_namespace(uid if how == "root" else None, program, rlimits)
    except OSError as exc:
        fail(exc)


if __name__ == "__main__":
    main()
