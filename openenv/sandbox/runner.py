"""The sandbox side of coding_env: a tiny Python REPL driven over two pipes.

Not imported by the server: :mod:`openenv.sandbox.sandbox` runs this file's source with
``python -I -c <source> <command fd> <result fd> <limits json>`` in a separate process, which
``launcher.py`` has already put in namespaces of its own (mount, IPC, PID, network: it runs as
PID 2, under the namespace's PID 1) and, when the server runs as root, moved to an unprivileged
uid. Standard library only, so any Python 3.8+ interpreter can run it.

Protocol: one JSON line per request on the command fd, ``{"code": "..."}``; one JSON line per
answer on the result fd, ``{"stdout": ..., "stderr": ..., "exit_code": ...}``. Variables live in
one namespace for the life of the process. Output of the code (and of processes it starts) goes
to two anonymous in-memory files that replace file descriptors 1 and 2 while the code runs.
"""

import errno
import io
import json
import linecache
import os
import resource
import signal
import sys
import tempfile
import time
import traceback

MB = 1024 * 1024


def apply_limits(limits):
    """Lower this process's resource limits (inherited by everything it starts)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-big write fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_mb"] * MB,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_size_mb"] * MB,) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["nproc"], limits["nproc"]))
    cpu_total = limits["cpu_budget_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_total, cpu_total))


def cpu_used():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def arm_cpu_limit(limits):
    """Allow ``cpu_s`` more CPU seconds for this run (SIGXCPU ends the process after that)."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = min(int(cpu_used()) + 1 + limits["cpu_s"], hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def hint(exc, limits):
    """One line saying which sandbox limit an exception comes from, if any."""
    if isinstance(exc, MemoryError):
        return f"sandbox: memory limit of {limits['memory_mb']} MB reached"
    number = getattr(exc, "errno", None)
    if number == errno.EFBIG:
        return f"sandbox: file size limit of {limits['file_size_mb']} MB reached"
    if number == errno.EAGAIN and isinstance(exc, OSError):
        return f"sandbox: process limit reached (at most {limits['processes']} processes)"
    if number == errno.EMFILE:
        return "sandbox: open file limit reached (256)"
    return None


class Runner:
    def __init__(self, limits):
        self.limits = limits
        self.namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        # files in memory (not on the sandbox's disk, which the code may fill), as long as the
        # process lives; bounded by the file size limit
        self.out = capture_file("stdout")
        self.err = capture_file("stderr")
        self.pid = os.getpid()
        self.cells = 0
        # unbuffered text streams: nothing is left behind in a buffer when a write fails
        sys.stdout = unbuffered(1)
        sys.stderr = unbuffered(2)

    def run(self, code):
        for f in (self.out, self.err):
            f.seek(0)
            f.truncate()
        saved = os.dup(1), os.dup(2)
        os.dup2(self.out.fileno(), 1)
        os.dup2(self.err.fileno(), 2)
        exit_code = 0
        try:
            arm_cpu_limit(self.limits)
            exit_code = self.execute(code)
        finally:
            if os.getpid() != self.pid:  # a fork of the user's code: never answer for it
                os._exit(exit_code or 0)
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except OSError:
                    pass
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        sweep(self.limits["mode"] == "uid" or self.limits.get("own_pids", False))
        out, err = self.read(self.out), self.read(self.err)
        return {"stdout": out, "stderr": err, "exit_code": exit_code}

    def execute(self, code):
        self.cells += 1
        name = f"<cell {self.cells}>"
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        try:
            exec(compile(code, name, "exec"), self.namespace)
        except SystemExit as exc:
            return exit_status(exc.code)
        except BaseException as exc:  # report every failure of the user's code, keep serving
            if os.getpid() == self.pid:  # forks of the user's code die quietly in run()
                self.report(exc)
            return 1
        return 0

    def report(self, exc):
        tb = exc.__traceback__
        tb = tb.tb_next if tb is not None and tb.tb_next is not None else tb
        try:
            traceback.print_exception(type(exc), exc, tb)
            note = hint(exc, self.limits)
            if note:
                print(note, file=sys.stderr)
        except (OSError, MemoryError):
            pass

    def read(self, f):
        limit = self.limits["output_bytes"]
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(0)
        text = f.read(limit).decode("utf-8", "replace")
        if size > limit:
            text += f"\n[... {size - limit} more bytes of output not shown]"
        return text


def sweep(alone):
    """End every process the code started (they never outlive the run), then reap them.

    ``alone``: every process this one may signal with ``kill(-1)`` belongs to the sandbox
    (its own PID namespace, whose PID 1 ``kill(-1)`` spares, or a uid of its own).
    """
    me = os.getpid()
    if alone:  # one atomic kill(-1) ends the rest
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    else:
        for _ in range(200):
            strays = [pid for pid in descendants(me) if pid != me]
            if not strays:
                break
            for pid in strays:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    reap(time.monotonic() + 2.0)


def descendants(me):
    """Live processes in this process group, or children of this process."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/" + name + "/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] not in (b"Z", b"X") and me in (int(fields[1]), int(fields[2])):
            found.append(int(name))
    return found


def reap(deadline):
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.002)


def capture_file(name):
    """An anonymous in-memory file (an unlinked temporary file where there is none)."""
    if hasattr(os, "memfd_create"):
        try:
            return os.fdopen(os.memfd_create(name), "w+b")
        except OSError:
            pass
    return tempfile.TemporaryFile()


def unbuffered(fd):
    raw = io.FileIO(fd, "w", closefd=False)
    return io.TextIOWrapper(raw, encoding="utf-8", errors="backslashreplace", write_through=True)


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data) :]


def exit_status(code):
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def main():
    command_fd, result_fd = int(sys.argv[1]), int(sys.argv[2])
    limits = json.loads(sys.argv[3])
    os.set_inheritable(command_fd, False)
    os.set_inheritable(result_fd, False)
    apply_limits(limits)
    runner = Runner(limits)
    commands = os.fdopen(command_fd, "rb")
    for line in commands:
        request = json.loads(line)
        answer = runner.run(request["code"])
        write_all(result_fd, (json.dumps(answer) + "\n").encode("utf-8"))


if __name__ == "__main__":
    main()
