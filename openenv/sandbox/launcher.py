"""The first stage of a sandbox: namespaces, private mounts, drop root, run and watch the program.

Not imported by the server: :mod:`openenv.sandbox.sandbox` runs this file's source with
``python -I -c <source> <options json> <program> <args>...``. Options:

* ``uid``: the sandbox's uid when the server runs as root, else null;
* ``network``: false: no network;
* ``loopback``: true (with ``network`` false): the network namespace's own loopback interface
  is brought up, so the code can serve and reach ``127.0.0.1`` inside it (the host's stays out
  of reach); a forwarded port (``relay.py``) listens there;
* ``private``: null, or ``{"workdir": path, "disk_mb": n}``: the sandbox gets the namespaces
  below, and ``workdir`` (a path under ``/tmp``) on a filesystem of ``disk_mb`` MiB;
* ``rlimits``: null, or resource limits by name, ``{"as": bytes, "fsize": bytes, "nproc": n,
  "nofile": n, "cpu": seconds}``, set just before the program is exec'd, with no core dumps and
  ``SIGXFSZ`` ignored (the REPL runner sets its own, so it is started without them, while a
  program that cannot, such as a Jupyter kernel, is started with them);
* ``budget``: null, or the sandbox's budget as a whole, which this process watches (see
  "Watching" below): ``{"memory_bytes": n, "cpu_s": n, "cgroup": null | {...}}``;
* ``lifeline``: a file descriptor whose other end only the server holds: when it reads end of
  file (the server closed the sandbox, or died, however it died), the sandbox is ended;
* ``report``: a file descriptor this process writes one JSON line to before it exits, when it
  ended the sandbox itself (``{"reason": "memory" | "cpu" | "owner", ...}``);
* ``files``: a file descriptor to read ``{name: base64}`` from: files written into the
  working directory (mode 0600, the sandbox's user's) before the program starts.

The program is ``runner.py`` (the REPL) or any other program a sandbox spawns. Standard
library only, so any Python 3.8+ interpreter can run it.

With ``private``, the code gets namespaces of its own, made in one of two ways, tried in order:

1. As root: ``unshare(CLONE_NEWNS | CLONE_NEWIPC [| CLONE_NEWNET])``, which needs
   ``CAP_SYS_ADMIN`` (root outside most containers); root is dropped to ``uid`` once the
   mounts below are made, so the code keeps no capability.
2. As an unprivileged user (root dropped first, if root): the same plus ``CLONE_NEWUSER``, the
   uid and gid mapped to themselves. ``exec`` of the runner then clears the capabilities the
   new user namespace gave, since the uid is not 0 in it.

In the new mount namespace (propagation made private, so nothing leaks back to the host):

* every mount is made read-only (``mount_setattr(AT_RECURSIVE)``, or a remount of each mount
  on kernels older than 5.12): the code cannot write anywhere on the host's filesystems;
* ``/tmp`` is a fresh tmpfs of ``disk_mb`` MiB (``mode=1777``, ``nosuid``, ``nodev``, a
  bounded number of inodes), the sandbox's one writable filesystem: its working directory is
  made in it, and ``/dev/shm`` is a directory of it too, so the working directory, ``/tmp``
  and ``/dev/shm`` share one disk budget, a write beyond it fails with ``ENOSPC``, and all of
  it vanishes with the namespace when the sandbox ends. Nothing is written to the host's disk,
  and no other session's directory is in sight. (The server reaches the working directory
  through ``/proc/<pid>/root`` of this process.)
* a new IPC namespace: System V shared memory and POSIX message queues vanish with it too.

Then ``unshare(CLONE_NEWPID)`` and a fork: the child is PID 1 of a new PID namespace, mounts a
fresh ``/proc`` for it, drops root, and forks the runner (PID 2), whose every process stays in
that namespace: the code can neither see nor signal any process outside (the server, other
sessions), and ``kill(-1)`` reaches only its own. PID 1 reaps orphans and, when the runner
ends, passes its wait status on and exits, which makes the kernel kill whatever is left in the
namespace; it also dies (``PR_SET_PDEATHSIG``) if this process does.

Watching: this process (outside the namespace) stays to watch the sandbox until PID 1 ends.
It ends the sandbox (SIGKILL to PID 1, which takes every process of the namespace with it)
when the ``lifeline`` closes, when the sandbox's processes together use more memory than
``memory_bytes`` or more CPU time than ``cpu_s``. With a ``cgroup`` (see ``cgroups.py``), this
process joins it before anything else, so every process of the sandbox is in it: the kernel
enforces the memory limit (its OOM killer ends a process of the group), and this process
notices the kill and ends the rest; the CPU time is the group's. Without one, it measures every
tenth of a second: the proportional set size of every process in the namespace, and their CPU
time. When PID 1 has ended, this process leaves the cgroup and removes it, writes its report,
and ends the same way as the runner (the same exit status, or killed by the same signal), so
the server sees the runner's fate.

With ``network`` false, the namespaces include a network namespace, which holds nothing but a
loopback interface (down unless ``loopback``): no route leads out, and the host's loopback
services (the server itself among them) are out of reach. Without ``private`` (the operator allowed
unisolated code where namespaces cannot be made), only that network namespace is made, as
above, and the program is exec'd directly: no disk budget, and no watching.

On failure nothing runs: one line on stderr and exit status 125.
"""

import base64
import ctypes
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import time

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
PR_SET_PDEATHSIG = 1
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
EXIT_FAILED = 125
WATCH_S = 0.1  # how often the budget is looked at

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


def loopback_up():
    """Bring up the loopback interface of the new network namespace (needs its CAP_NET_ADMIN:
    root, or the owner of the user namespace, before the exec)."""
    import fcntl

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH22x", b"lo", 0)  # struct ifreq: name, flags
        try:
            flags = struct.unpack("16sH22x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
            fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))
        except OSError as exc:
            raise OSError(exc.errno, f"bringing up loopback: {exc.strerror}") from None


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


def private_mounts(workdir, disk_mb, owner):
    """Read-only host; a fresh ``/tmp`` of ``disk_mb`` MiB holding the working directory and
    ``/dev/shm``, the one writable filesystem. ``owner``: the uid to give the working directory
    (None: this process's user)."""
    if not isinstance(disk_mb, int) or disk_mb < 1:
        raise OSError(0, f"the disk size must be a whole number of MiB >= 1, not {disk_mb!r}")
    if not workdir.startswith("/tmp/") or "/." in workdir or "//" in workdir:
        raise OSError(0, f"the working directory must be a plain path under /tmp, not {workdir}")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    set_readonly("/", True, recursive=True)
    options = f"size={disk_mb}m,nr_inodes={max(1024, disk_mb * 256)},mode=1777"
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, options)
    for part in ("/tmp/tmp", "/tmp/shm"):  # one filesystem, seen at two places
        os.mkdir(part)
        os.chmod(part, 0o1777)
    if os.path.isdir("/dev/shm") and not os.path.islink("/dev/shm"):
        mount("/tmp/shm", "/dev/shm", None, MS_BIND)
    mount("/tmp/tmp", "/tmp", None, MS_BIND)  # over the tmpfs's top: shm is out of sight
    make_mount_point(os.path.dirname(workdir))
    os.mkdir(workdir)
    os.chmod(workdir, 0o700)
    if owner is not None:
        os.chown(workdir, owner, owner)
    os.chdir(workdir)


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


# -- processes ---------------------------------------------------------------------------------


def run_in_pid_namespace(uid, program, rlimits, watch):
    """Fork PID 1 of a new PID namespace, which forks the runner; watch it; end as it ends."""
    unshare(CLONE_NEWPID, "unshare(CLONE_NEWPID)")
    status_r, status_w = os.pipe()
    watch.proc_dev = os.stat("/proc").st_dev  # PID 1 mounts its own /proc over this one
    init = os.fork()
    if init == 0:
        os.close(status_r)
        try:
            be_init(uid, program, status_w, rlimits, watch.files)
        except OSError as exc:
            fail(exc)
        os._exit(EXIT_FAILED)
    os.close(status_w)
    close_all_but(status_r, *watch.fds())
    if uid is not None and watch.cgroup is None:
        drop_root(uid)  # root is kept only to remove the cgroup at the end
    init_status = watch.run(init)
    with os.fdopen(status_r, "rb") as f:
        reported = f.read()
    watch.finish()
    end_like(int(reported) if reported else init_status)


def be_init(uid, program, status_w, rlimits=None, files=None):
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the watcher gone: the namespace too
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if uid is not None:
        drop_root(uid)
    check(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl(PR_SET_DUMPABLE)")
    write_files(files or {})
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


def write_files(files):
    for name, data in files.items():
        if not name or "/" in name or name in (".", ".."):
            raise OSError(0, f"a sandbox file name must be a plain name, not {name!r}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(name, flags, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)


def close_all_but(*keep):
    low = 3
    for fd in sorted(k for k in keep if k is not None):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def end_like(status):
    """Exit as a process with wait status ``status`` did: same code, or same signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no core dump, not even to a pipe helper
        if number not in (signal.SIGKILL, signal.SIGSTOP):  # those cannot be caught anyway
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


# -- watching ----------------------------------------------------------------------------------


class Watch:
    """The sandbox's budget as a whole, watched from outside its namespaces (see the module
    doc): the lifeline, memory and CPU time of all its processes, and its cgroup's removal."""

    def __init__(self, options):
        budget = options.get("budget") or {}
        self.memory = budget.get("memory_bytes")
        self.cpu_s = budget.get("cpu_s")
        self.lifeline = options.get("lifeline")
        self.report = options.get("report")
        self.files = read_files(options.get("files"))
        self.cgroup = None
        self.reason = None
        self.peak = 0
        self.proc_dev = None
        self.oom_seen = 0
        for fd in (self.lifeline, self.report):
            if fd is not None:
                os.set_inheritable(fd, False)  # never into the program
        if budget.get("cgroup"):
            self.cgroup = CgroupFds(budget["cgroup"])
            self.oom_seen = self.cgroup.oom_kills()

    def fds(self):
        found = [self.lifeline, self.report]
        if self.cgroup is not None:
            found += self.cgroup.fds()
        return found

    def run(self, init):
        """Watch until PID 1 ends; its wait status."""
        while True:
            ready = []
            if self.lifeline is not None:
                ready = select.select([self.lifeline], [], [], WATCH_S)[0]
            else:
                time.sleep(WATCH_S)
            if ready and not read_some(self.lifeline):
                self.end(init, "owner")
                self.lifeline = None
            pid, status = os.waitpid(init, os.WNOHANG)
            if pid == init:
                return status
            over = self.over_budget()
            if over is not None:
                self.end(init, over)

    def end(self, init, reason):
        if self.reason is None:
            self.reason = reason
        try:
            os.kill(init, signal.SIGKILL)
        except OSError:
            pass

    def over_budget(self):
        if self.cgroup is not None:
            if self.cgroup.oom_kills() > self.oom_seen:
                return "memory"
            used = self.cgroup.cpu_seconds()
            if self.cpu_s is not None and used is not None and used > self.cpu_s:
                return "cpu"
            return None
        if self.proc_dev is None or os.stat("/proc").st_dev == self.proc_dev:
            return None  # PID 1 has not mounted the namespace's /proc yet
        memory, cpu = measure()
        self.peak = max(self.peak, memory)
        if self.memory is not None and memory > self.memory:
            return "memory"
        if self.cpu_s is not None and cpu > self.cpu_s:
            return "cpu"
        return None

    def finish(self):
        """After PID 1: leave and remove the cgroup, write the report."""
        if self.cgroup is not None:
            self.peak = self.cgroup.peak()
            self.cgroup.remove()
        if self.report is not None and self.reason is not None:
            line = {"reason": self.reason, "memory_bytes": self.memory, "cpu_s": self.cpu_s}
            line["peak_bytes"] = self.peak
            try:
                os.write(self.report, (json.dumps(line) + "\n").encode())
            except OSError:
                pass


def read_some(fd):
    try:
        return os.read(fd, 64)
    except OSError:
        return b""


def read_files(fd):
    if fd is None:
        return {}
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    data = json.loads(b"".join(chunks) or b"{}")
    return {name: base64.b64decode(value) for name, value in data.items()}


def measure():
    """(bytes, CPU seconds) of every process this /proc shows: the namespace's."""
    memory, ticks = 0, 0
    page = os.sysconf("SC_PAGE_SIZE")
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        memory += process_memory(name, page)
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            ticks += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        except (OSError, IndexError, ValueError):
            pass
    return memory, ticks / os.sysconf("SC_CLK_TCK")


def process_memory(name, page):
    """Proportional set size (shared pages split among their users), or resident size."""
    try:
        with open(f"/proc/{name}/smaps_rollup", "rb") as f:
            kib = [int(x.split()[1]) for x in f if x.startswith((b"Pss:", b"SwapPss:"))]
        if kib:
            return sum(kib) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{name}/statm", "rb") as f:
            return int(f.read().split()[1]) * page
    except (OSError, ValueError, IndexError):
        return 0


class CgroupFds:
    """The sandbox's cgroup, held by file descriptors opened before the host's filesystems
    are made read-only in the new mount namespace."""

    def __init__(self, spec):
        self.version = spec["version"]
        self.parents = []  # (name, directory fd, cgroup.procs fd) of each parent
        for path in spec["dirs"]:
            parent = os.path.dirname(path)
            parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
            procs_fd = os.open(os.path.join(parent, "cgroup.procs"), os.O_WRONLY)
            self.parents.append((os.path.basename(path), parent_fd, procs_fd))
            write_text(os.path.join(path, "cgroup.procs"), str(os.getpid()))
        self.events = os.open(spec["events"], os.O_RDONLY)
        self.cpu = os.open(spec["cpu"], os.O_RDONLY) if spec.get("cpu") else None
        directory = os.path.dirname(spec["events"])
        peak = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            self.peak_fd = os.open(os.path.join(directory, peak), os.O_RDONLY)
        except OSError:
            self.peak_fd = None

    def fds(self):
        found = [self.events, self.cpu, self.peak_fd]
        for _, parent_fd, procs_fd in self.parents:
            found += [parent_fd, procs_fd]
        return found

    def oom_kills(self):
        for line in pread_text(self.events).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def cpu_seconds(self):
        if self.cpu is None:
            return None
        text = pread_text(self.cpu)
        if self.version == 1:
            return int(text.strip() or 0) / 1e9
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        return None

    def peak(self):
        if self.peak_fd is None:
            return 0
        try:
            return int(pread_text(self.peak_fd).strip() or 0)
        except ValueError:
            return 0

    def remove(self):
        for name, parent_fd, procs_fd in self.parents:
            try:
                os.write(procs_fd, str(os.getpid()).encode())
            except OSError:
                pass
            for _ in range(200):  # the kernel frees a group a moment after its last process
                try:
                    os.rmdir(name, dir_fd=parent_fd)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def pread_text(fd):
    try:
        return os.pread(fd, 1 << 16, 0).decode()
    except OSError:
        return ""


def write_text(path, text):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def fail(exc):
    print(f"sandbox: could not isolate the code: {exc.strerror}", file=sys.stderr, flush=True)
    os._exit(EXIT_FAILED)


def main():
    options = json.loads(sys.argv[1])
    program = sys.argv[2:]
    uid, network, private = options["uid"], options["network"], options.get("private")
    rlimits = options.get("rlimits")
    try:
        watch = Watch(options)  # joins the cgroup first: everything below is in it
        how = None if network and not private else enter_namespaces(uid, network, private)
        if options.get("loopback") and not network:
            loopback_up()
        if not private:
            if uid is not None and how != "user":
                drop_root(uid)
            exec_program(program, rlimits)
        owner = uid if how == "root" else None
        private_mounts(private["workdir"], private["disk_mb"], owner)
        run_in_pid_namespace(owner, program, rlimits, watch)
    except OSError as exc:
        fail(exc)


if __name__ == "__main__":
    main()
