"""A task's sandbox driven call by call: the white-box way to run a Harbor task.

``run_rollout`` hands a task to a coding agent that owns its loop; a workspace hands the loop to
the caller instead (a trainer that samples each turn itself, TRL's ``harness_adapter`` mode):
:meth:`Workspace.open` starts the task's sandbox with its starting files and gives the
instruction, :meth:`Workspace.bash` runs one shell command there (the same sandbox each time:
files persist between commands), :meth:`Workspace.verify` runs the task's verifier in it and
gives the reward, and the sandbox is closed.

The sandbox is the task's as a rollout gets it (``process``: our own, no network at all;
``docker``: the task's image, ``--network none``), the tests copied in only at ``verify``.
Bounds: a command is at most :data:`MAX_COMMAND_CHARS` characters and runs at most
:data:`MAX_COMMAND_S` seconds, its output cut to the sandbox's log tail; at most
:data:`MAX_COMMANDS` commands, all within the task's own agent time; a server holds at most
:attr:`Workspaces.limit` workspaces at once (one per session), and one left open past its
task's time and :data:`GRACE_S` more is closed to make room.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from openenv.core.harness.docker_sandbox import DockerTaskSandbox
from openenv.core.harness.harnesses.base import Harness
from openenv.core.harness.rollout import SANDBOXES
from openenv.core.harness.sandboxes import ProcessTaskSandbox, SandboxError
from openenv.core.harness.tasks import HarborTask

MAX_COMMAND_CHARS = 64 * 1024
MAX_COMMAND_S = 600.0
MAX_COMMANDS = 500
GRACE_S = 600.0  # a workspace past its agent time, kept this long for verify


class WorkspaceError(ValueError):
    """A workspace call that cannot be made (closed, over a bound, a sandbox that failed)."""


class ShellOnly(Harness):
    """No agent program: the caller's commands run with the image's own shell."""

    name = "shell"

    def probe(self) -> list[str] | None:
        return ["/bin/sh", "-c", "true"]

    def container_needs(self) -> str:
        return "/bin/sh and bash"


class Workspace:
    """One task's sandbox, open until :meth:`verify` or :meth:`close`."""

    def __init__(
        self,
        task: HarborTask,
        sandbox: str = "process",
        on_close: Callable[[], None] | None = None,
    ) -> None:
        """Start ``task``'s sandbox; ``on_close`` is called once, when the sandbox is closed
        (the server's count of open workspaces)."""
        self._on_close = on_close
        self.task, self.sandbox = task, sandbox
        self.commands = 0
        self.deadline = time.monotonic() + task.agent_timeout_s
        self._lock = threading.Lock()  # one command at a time: the sandbox runs one cell
        self._closed = False
        if sandbox not in SANDBOXES:
            self.close()
            raise WorkspaceError(f"unknown sandbox {sandbox!r}: use {', '.join(SANDBOXES)}")
        try:
            if sandbox == "docker":
                self.box: Any = DockerTaskSandbox(task, ShellOnly(), network="none")
            else:
                self.box = ProcessTaskSandbox(
                    harness_timeout_s=min(task.agent_timeout_s, MAX_COMMAND_S),
                    verifier_timeout_s=task.verifier_timeout_s,
                )
            self.box.seed(task.files("environment/app"))
        except Exception as exc:  # whatever stopped it, its slot and its files are given back
            self.close()
            why = f"{task.name}: the {sandbox} sandbox did not start: {exc}"
            raise WorkspaceError(why) from None

    @property
    def closed(self) -> bool:
        return self._closed

    def bash(self, command: str, timeout_s: float = 60.0) -> dict[str, Any]:
        """Run ``command`` with bash in the task's working directory: its exit code (None when
        it was stopped), whether it ran past ``timeout_s``, the tail of its output."""
        if not command.strip():
            raise WorkspaceError("an empty command")
        if len(command) > MAX_COMMAND_CHARS:
            raise WorkspaceError(f"a command is at most {MAX_COMMAND_CHARS} characters")
        with self._lock:
            self._check_open()
            if self.commands >= MAX_COMMANDS:
                raise WorkspaceError(f"this workspace ran its {MAX_COMMANDS} commands: verify it")
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise WorkspaceError(
                    f"the task's {self.task.agent_timeout_s:g} s are spent: verify it"
                )
            self.commands += 1
            limit = max(1.0, min(timeout_s, MAX_COMMAND_S, left))
            try:
                ran = self.box.run_harness(["/bin/bash", "-c", command], {}, limit)
            except SandboxError as exc:
                self._close_box()
                raise WorkspaceError(f"the sandbox failed: {exc}") from None
        return {"exit_code": ran.exit_code, "timed_out": ran.timed_out, "output": ran.log_tail}

    def verify(self) -> dict[str, Any]:
        """Run the task's verifier in the sandbox (its tests copied in only now), then close
        it: the reward (None when the verifier gave none) and what the verifier printed."""
        with self._lock:
            self._check_open()
            try:
                verdict = self.box.verify(
                    self.task.files("tests"), self.task.verifier_env, self.task.verifier_timeout_s
                )
            except SandboxError as exc:
                raise WorkspaceError(f"the verifier could not run: {exc}") from None
            finally:
                self._close_box()
        return {
            "reward": verdict.reward,
            "output": verdict.output,
            "problem": verdict.problem,
            "commands": self.commands,
        }

    def close(self) -> None:
        """Close the sandbox and remove its files (idempotent)."""
        with self._lock:
            self._close_box()

    def _check_open(self) -> None:
        if self._closed:
            raise WorkspaceError("this workspace is closed (verified, or closed): open a task")

    def _close_box(self) -> None:
        if not self._closed:
            self._closed = True
            box = getattr(self, "box", None)
            try:
                if box is not None:
                    box.close()
            finally:
                if self._on_close is not None:
                    self._on_close()


class Workspaces:
    """A server's open workspaces: at most ``limit`` at once."""

    def __init__(self, limit: int = 4) -> None:
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)
        self._open: list[Workspace] = []
        self._lock = threading.Lock()

    def open(self, task: HarborTask, sandbox: str = "process") -> Workspace:
        """Start ``task``'s workspace; :class:`WorkspaceError` when ``limit`` are open (or its
        sandbox did not start)."""
        if not self._slot():
            raise WorkspaceError(
                f"{self.limit} task workspaces are open on this server: one frees when its "
                "session verifies its task or leaves"
            )
        workspace = Workspace(task, sandbox, on_close=self._slots.release)  # frees it on error
        with self._lock:
            self._open.append(workspace)
        return workspace

    def free(self) -> bool:
        """Whether a workspace could be opened now (nothing is taken)."""
        if not self._slots.acquire(blocking=False):
            return False
        self._slots.release()
        return True

    def close(self) -> None:
        """Close every open workspace."""
        with self._lock:
            left, self._open = list(self._open), []
        for workspace in left:
            workspace.close()

    def _slot(self) -> bool:
        """Take a slot, closing workspaces left past their time when none is free."""
        if self._slots.acquire(blocking=False):
            return True
        with self._lock:
            self._open = [w for w in self._open if not w.closed]
            stale = time.monotonic() - GRACE_S
            expired = [w for w in self._open if w.deadline < stale]
        for workspace in expired:
            workspace.close()  # gives its slot back
        return self._slots.acquire(blocking=False)
