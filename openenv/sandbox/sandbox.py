"""A sandboxed, persistent Python process per episode of coding_env (and the other envs that
run code: repl_env, jupyter_env).

The code never runs in the server process. :class:`Sandbox` starts ``runner.py`` in a child
process on first use (a fresh one after every reset) and talks to it over two pipes, so
variables persist between the steps of an episode. Or it starts another program of the
caller's under the same launcher, namespaces, user and limits (:meth:`Sandbox.spawn`, added for
jupyter_env's kernels): :meth:`Sandbox.prepare` makes the working directory first, so the
caller can write a connection file there (``spawn(files=...)``, owned by the sandbox's user)
and talk to the program over Unix sockets in it, the one directory both sides see (a network
namespace cannot reach the host's loopback TCP). A spawned program lives until
:meth:`Sandbox.close`, which kills all its processes; the launcher sets its rlimits (the
runner sets its own), and the caller enforces its deadlines (jupyter_env interrupts, then
restarts, a kernel past its time). The child gets:

* its own private working directory (also ``$HOME`` and ``$TMPDIR``), removed at close;
* a clean environment: ``PATH``, ``HOME``, ``TMPDIR`` and a locale, nothing from the server;
* resource limits: CPU seconds per run (``RLIMIT_CPU``), address space (``RLIMIT_AS``),
  file size (``RLIMIT_FSIZE``), process count (``RLIMIT_NPROC``), open files, no core dumps;
* a wall-clock limit per run: when it passes, every process of the sandbox is killed and the
  next run starts a fresh interpreter;
* namespaces of its own, made by ``launcher.py`` (see there for how):

  - mount: every filesystem of the host is read-only but the working directory, the only
    sandbox directory in sight (the directory that holds them all, the server's ``/tmp`` by
    default, is covered by a tmpfs); ``/tmp`` and ``/dev/shm`` are tmpfs mounts of its own,
    ``CODING_TMP_MB`` MiB each (64 by default), so filling them ends in ``ENOSPC`` and what
    was written there vanishes with the sandbox; ``/proc`` shows its own processes only;
  - PID: the code sees and can signal only its own processes (PID 1 is the sandbox's init,
    the interpreter is PID 2), never the server's nor other sessions';
  - IPC: System V and POSIX IPC objects are private and vanish with it too;
  - network (unless ``CODING_NETWORK=on``): a network namespace of its own, so neither the
    internet nor the host's loopback services (this server included) can be reached.

  If the machine allows no namespace (a container without ``CAP_SYS_ADMIN`` and without
  unprivileged user namespaces), no code runs: :func:`~openenv.sandbox.isolation.isolation`
  raises :class:`SandboxUnavailable` saying how to allow it. Only ``CODING_ALLOW_UNISOLATED=on``
  lets code run there without them (and ``CODING_NETWORK=on`` where no network namespace can be
  made either): then ``/tmp``, ``/dev/shm`` and the host's processes are shared, as they are
  without a sandbox.

When the server runs as root (containers, Spaces), each sandbox runs as its own unprivileged
uid, chosen at random, because Linux does not apply ``RLIMIT_NPROC`` to root. That uid cannot
read the server's files under ``/root`` or its ``/proc/<pid>/environ``, and "every process of
the sandbox" is simply "every process of that uid". Otherwise the sandbox runs as the server's
user (in a user namespace of its own, mapping that uid to itself), with the process limit
counted on top of the processes that user already has; the PID namespace hides the server and
the other sessions, and killing the launcher's process group ends the sandbox's PID 1, which
makes the kernel kill every process in the namespace. Files the server's user may read stay
readable to the code (read-only), and so do the Unix sockets it may connect to: run the server
as root, or in a container, to keep them from it. The server process is made non-dumpable, so
its ``/proc/<pid>/environ`` stays unreadable even where no PID namespace hides it.

A sandbox without network may still be given one port of the host (:meth:`Sandbox.forward`,
the capture proxy of a Harbor rollout, say): a Unix socket in its private ``/tmp``, relayed by
the server to that loopback TCP port and nothing else (see ``ports.py`` and ``relay.py``).

Processes started by the code do not outlive the run that started them.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import select
import signal
import subprocess
import tempfile
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from openenv.sandbox import cgroups
from openenv.sandbox.isolation import (
    Isolation,
    isolation,
    launch_command,
)
from openenv.sandbox.limits import SandboxLimits
from openenv.sandbox.processes import (
    UIDS_IN_USE,
    Live,
    allocate_uid,
    clean_environment,
    pids,
    protect_server_process,
)

if TYPE_CHECKING:  # imported when a port is forwarded: the REPL needs neither module
    from openenv.sandbox.ports import ForwardedPort

MAX_CONNECTIONS = 32  # a forwarded port's connections at once
RUNNER_SOURCE = Path(__file__).with_name("runner.py").read_text(encoding="utf-8")
EXIT_TIMEOUT = 124  # like coreutils timeout(1); killed by signal N gives 128 + N
MAX_CODE_BYTES = 1_000_000


@dataclass(frozen=True)
class RunResult:
    stdout: str
    stderr: str
    exit_code: int


class Sandbox:
    """One persistent interpreter in its own process; ``run(code)`` executes a cell.

    Or, instead of the REPL, one long-lived program of the caller's (``spawn``): a Jupyter
    kernel, say, that the caller talks to over Unix sockets in :attr:`workdir` (reached from
    the server at :meth:`host_path`).

    :meth:`close` is idempotent and bounded in time. A sandbox dropped without it ends anyway,
    without blocking the one who drops it: its finalizer only closes the lifeline (see
    ``launcher.py``), and the launcher ends the sandbox; a sandbox whose owner process dies,
    however it dies, ends the same way.
    """

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits.from_env()
        self._live = Live()
        self._finalizer = weakref.finalize(self, self._live.release)
        self._workdir: str | None = None
        self._uid: int | None = None
        self._private = True
        self._spawned = False
        self._forwarded: list[ForwardedPort] = []

    @property
    def workdir(self) -> str | None:
        """The working directory, as the sandbox's processes see it (None before start)."""
        return self._workdir

    @property
    def python(self) -> str:
        """The interpreter that runs code in sandboxes on this machine (an absolute path)."""
        how = isolation(network=self.limits.network, allow_unisolated=self.limits.allow_unisolated)
        return how.python

    @property
    def alive(self) -> bool:
        """Whether the sandbox's process (REPL or spawned program) is running."""
        proc = self._live.proc  # read once: close() may run in another thread
        return proc is not None and proc.poll() is None

    @property
    def ended_because(self) -> str:
        """Why the sandbox's watcher ended it ("" when it did not): its memory or CPU budget."""
        return self._live.read_report(self.limits)

    def host_path(self, name: str) -> str:
        """Where the server reaches ``name`` in the working directory of the running sandbox
        (through ``/proc/<pid>/root`` of its launcher, in the sandbox's mount namespace)."""
        proc = self._live.proc
        if proc is None or self._workdir is None:
            raise RuntimeError("the sandbox is not running")
        if not self._private:
            return os.path.join(self._workdir, name)
        return f"/proc/{proc.pid}/root{self._workdir}/{name}"

    def prepare(self) -> str:
        """Choose the working directory (made when the sandbox starts, owned by the sandbox's
        user) without starting anything, so a caller can name paths in it; return it. Raises
        :class:`SandboxUnavailable`."""
        self._prepare()
        assert self._workdir is not None
        return self._workdir

    def spawn(
        self,
        program: list[str],
        *,
        files: Mapping[str, bytes] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """Start ``program`` (an argv, ``program[0]`` an absolute path: :attr:`python`, say) in
        the sandbox instead of the REPL, with the same namespaces, user and limits.

        The launcher sets the limits (address space, file size, processes, 256 open files, the
        episode's CPU budget) just before the program starts, and watches the sandbox's memory
        and CPU budget; there is no per-run CPU or wall-clock limit, since the sandbox does not
        know what a run is: the caller enforces its own deadlines and ends the program with
        :meth:`close`, which kills every process of the sandbox. ``files`` (names relative to
        the working directory, no subdirectory) are written there first, readable by the
        sandbox's user alone; ``env`` adds variables to the clean environment (``PATH``,
        ``HOME``, ``TMPDIR`` and the locale stay as set).
        """
        if self._live.proc is not None:
            raise RuntimeError("this sandbox is already running a process; close() it first")
        for name in files or {}:
            if not name or "/" in name or name in (".", ".."):
                raise ValueError(f"a sandbox file name must be a plain name, got {name!r}")
        self.prepare()
        lim = self.limits
        rlimits = {
            "as": lim.memory_mb * 2**20,
            "fsize": lim.file_size_mb * 2**20,
            "nofile": 256,
            "cpu": lim.cpu_budget_s,
        }
        self._spawned = True
        self._launch(lambda python: list(program), rlimits=rlimits, env=env, files=files)

    def run(self, code: str) -> RunResult:
        """Execute ``code`` in the sandbox's namespace and return its output and exit code."""
        if self._spawned:
            raise RuntimeError("this sandbox runs a spawned program; run() drives the REPL only")
        if len(code.encode("utf-8")) > MAX_CODE_BYTES:
            return RunResult("", f"sandbox: code longer than {MAX_CODE_BYTES} bytes", 1)
        if self._live.proc is None:
            self._start()
        deadline = time.monotonic() + self.limits.timeout_s
        answer = self._send(code) and self._receive(deadline)
        if isinstance(answer, dict):
            return RunResult(str(answer["stdout"]), str(answer["stderr"]), int(answer["exit_code"]))
        proc = self._live.proc
        if answer != "timeout" and proc is not None:  # the runner died: let the launcher end
            # the way it did (it passes the runner's exit status on), then kill
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        return self._crashed(timed_out=answer == "timeout")

    def forward(self, port: int, max_connections: int = MAX_CONNECTIONS) -> ForwardedPort:
        """Let the running sandbox, which has no network, reach the host's loopback TCP
        ``port``, and nothing else, through a Unix socket in its private ``/tmp`` (see
        ``ports.py``): at most ``max_connections`` at once, until the returned port's
        ``close()`` or the sandbox's. Its ``relay_command(python)``, started in the sandbox,
        listens on ``127.0.0.1:<port>`` there (with ``SandboxLimits(loopback=True)``), so a
        client's URL is the same on both sides."""
        from openenv.sandbox.ports import ForwardedPort

        proc = self._live.proc
        if proc is None or self._workdir is None:
            raise RuntimeError("the sandbox is not running")
        if self.limits.network or not self._private:
            raise RuntimeError("only a sandbox with namespaces and no network has ports forwarded")
        forwarded = ForwardedPort(f"/proc/{proc.pid}/root", port, self._uid, max_connections)
        self._forwarded.append(forwarded)
        return forwarded

    def close(self) -> None:
        """Kill every process of the sandbox and remove what it had (idempotent; it waits a
        few seconds at most)."""
        forwarded, self._forwarded = self._forwarded, []
        for port in forwarded:
            port.close()
        self._live.stop(self._uid)
        self._live.reason = ""
        self._workdir_gone()
        self._spawned = False

    def detach(self) -> None:
        """End the sandbox without waiting for it, as a sandbox dropped without :meth:`close`
        does: the lifeline closes, and the launcher kills the sandbox's processes. For
        finalizers, which must not block; the sandbox cannot be used afterwards."""
        self._finalizer()

    def _workdir_gone(self) -> None:
        self._workdir = None  # on the sandbox's own disk, or removed by Live.release
        if self._uid is not None:
            UIDS_IN_USE.discard(self._uid)
            self._uid = None

    # -- starting ---------------------------------------------------------------------------

    def _start(self) -> None:
        self._prepare()  # may raise SandboxUnavailable: before any pipe is made
        cmd_r, self._live.cmd = os.pipe()
        self._live.res, res_w = os.pipe()
        try:
            self._launch(
                lambda python: [
                    python,
                    "-I",
                    "-X",
                    "utf8",
                    "-c",
                    RUNNER_SOURCE,
                    str(cmd_r),
                    str(res_w),
                ],
                pass_fds=(cmd_r, res_w),
                limits_arg=True,
            )
        finally:
            os.close(cmd_r)
            os.close(res_w)

    def _prepare(self) -> Isolation:
        how = isolation(network=self.limits.network, allow_unisolated=self.limits.allow_unisolated)
        if self._workdir is None:
            self._private = how.private
            if how.users == "uid":
                self._uid = allocate_uid()
            if how.private:  # made by the launcher, on the sandbox's own disk
                self._workdir = f"/tmp/openenv-code-{secrets.token_hex(8)}"
                self._live.host_dir = None
            else:
                self._workdir = tempfile.mkdtemp(prefix="openenv-code-")
                self._live.host_dir = self._workdir
                if self._uid is not None:
                    os.chown(self._workdir, self._uid, self._uid)
        return how

    def _launch(
        self,
        program: Callable[[str], list[str]],
        *,
        pass_fds: tuple[int, ...] = (),
        limits_arg: bool = False,
        rlimits: dict[str, int] | None = None,
        env: Mapping[str, str] | None = None,
        files: Mapping[str, bytes] | None = None,
    ) -> None:
        """Start ``program(python)`` behind the launcher, in the working directory.

        ``limits_arg``: append the limits as JSON (what the REPL runner reads, to set its own
        rlimits); ``rlimits``: let the launcher set them before the program starts instead."""
        how = self._prepare()
        assert self._workdir is not None
        nproc = self.limits.processes
        private = None
        if how.private:  # the launcher and PID 1 of the sandbox's namespace count too
            nproc += 2
            private = {"workdir": self._workdir, "disk_mb": self.limits.disk_mb}
        if how.users != "uid":
            nproc += len(pids(lambda pid, uid, pgrp: uid == os.getuid()))
            protect_server_process()
        argv = program(how.python)
        if limits_arg:
            argv.append(
                json.dumps(
                    {
                        **asdict(self.limits),
                        "nproc": nproc,
                        "mode": how.users,
                        "own_pids": how.private,
                    }
                )
            )
        if rlimits is not None:
            rlimits = {**rlimits, "nproc": nproc}
        if how.private:
            watched = self._watch_options(how, files)
        else:  # no launcher-side filesystem: the files go straight into the working directory
            watched = {}
            self._write_files(files or {})
        launcher = launch_command(
            how.python,
            self._uid,
            self.limits.network,
            private,
            rlimits,
            watched,
            loopback=self.limits.loopback,
        )
        keep = tuple(fd for fd in watched.values() if isinstance(fd, int))
        cwd = self._workdir if not how.private else "/"
        try:
            self._live.proc = subprocess.Popen(
                [*launcher, *argv],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(*pass_fds, *keep),
                cwd=cwd,
                env={**(env or {}), **clean_environment(self._workdir)},
                start_new_session=True,
                umask=0o077,
            )
        finally:
            self._live.close_launcher_ends()

    def _write_files(self, files: Mapping[str, bytes]) -> None:
        """``files`` into the (host-side) working directory, readable by the sandbox's user."""
        assert self._workdir is not None
        for name, data in files.items():
            path = os.path.join(self._workdir, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if self._uid is not None:
                    os.fchown(fd, self._uid, self._uid)
            finally:
                os.close(fd)

    def _watch_options(self, how: Isolation, files: Mapping[str, bytes] | None) -> dict:
        """The lifeline, report and files pipes and the budget the launcher watches."""
        live = self._live
        lifeline_r, live.lifeline = os.pipe()
        live.report, report_w = os.pipe()
        live.launcher_ends = [lifeline_r, report_w]
        lim = self.limits
        live.cgroup = (
            cgroups.create("code", lim.memory_mb * 2**20, lim.processes + 2)
            if how.users == "uid"
            else None
        )
        options: dict = {
            "lifeline": lifeline_r,
            "report": report_w,
            "budget": {
                "memory_bytes": lim.memory_mb * 2**20,
                "cpu_s": lim.cpu_budget_s,
                "cgroup": live.cgroup.launcher_options() if live.cgroup else None,
            },
        }
        if files:
            data = json.dumps({k: base64.b64encode(v).decode() for k, v in files.items()})
            files_r, files_w = os.pipe()
            live.launcher_ends.append(files_r)
            with os.fdopen(files_w, "wb") as f:  # small (a connection file): fits the pipe
                f.write(data.encode())
            options["files"] = files_r
        return options

    # -- talking ------------------------------------------------------------------------------

    def _send(self, code: str) -> bool:
        data = (json.dumps({"code": code}) + "\n").encode("utf-8")
        try:
            while data:
                data = data[os.write(self._live.cmd, data) :]
        except OSError:
            return False
        return True

    def _receive(self, deadline: float) -> dict | str:
        buffer = bytearray()
        while not buffer.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            ready, _, _ = select.select([self._live.res], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._live.res, 1 << 16)
            if not chunk:
                return "died"
            buffer += chunk
        return json.loads(buffer)

    def _crashed(self, *, timed_out: bool) -> RunResult:
        proc = self._live.proc
        self._live.stop(self._uid)
        status = proc.poll() if proc is not None else None
        message, exit_code = self._explain(status, timed_out)
        self.close()  # the next run starts a fresh interpreter in a fresh directory
        note = "the sandbox was restarted, so variables from earlier steps are gone"
        return RunResult("", f"sandbox: {message}; {note}\n", exit_code)

    def _explain(self, status: int | None, timed_out: bool) -> tuple[str, int]:
        lim = self.limits
        if self.ended_because:
            return self.ended_because, 128 + signal.SIGKILL
        if timed_out:
            return f"wall-clock time limit of {lim.timeout_s:g} s exceeded", EXIT_TIMEOUT
        if status is not None and status < 0:
            signum = -status
            if signum == signal.SIGXCPU:
                return f"CPU time limit of {lim.cpu_s} s exceeded", 128 + signum
            name = signal.Signals(signum).name
            return f"the Python process was killed by {name}", 128 + signum
        return f"the Python process exited (status {status})", status or 1
