"""Where an episode's commands run: the provider seam.

A :class:`Workspace` runs bash command lines and trusted Python (the file tools' helper) in
one sandbox per episode, whose home is shown to the agent as ``/home/user`` (E2B's home).

* :class:`LocalWorkspace` (the default, ``CODING_TOOLS_PROVIDER=local``): our per-session
  sandbox (:mod:`openenv.sandbox`: no network unless ``CODING_NETWORK=on``, the host
  read-only, limits on time, CPU, memory, processes, file size and output, from the manifest's
  ``sandbox:`` block and ``CODING_*``). Its home is a private directory; ``/home/user`` in a
  command is mapped onto it, and bash output shows it as ``~``.
* :class:`E2BWorkspace` (``CODING_TOOLS_PROVIDER=e2b``): the documented backend, a fresh E2B
  cloud sandbox per episode through the ``e2b`` SDK; needs ``E2B_API_KEY``.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from typing import Any, Protocol

from openenv.sandbox import SandboxLimits
from openenv.sandbox.shell import Shell, ShellResult

HOME = "/home/user"  # the home the agent sees, whatever the provider
SHELL_ENV = {"TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "PYTHONDONTWRITEBYTECODE": "1"}
_HOME_WORD = re.compile(r"(?<![\w./-])/home/user(?=$|[/\s'\"`;:|&<>)}])")


class ProviderError(RuntimeError):
    """The sandbox could not be made or reached (say why and what to set)."""


@dataclass(frozen=True)
class Outcome:
    """What a bash command gave: its output (stdout and stderr merged), exit code, whether it
    was killed at the time limit, where it left the shell, and a failure of the sandbox."""

    output: str
    exit_code: int
    timed_out: bool = False
    cwd: str = HOME
    sandbox_error: str = ""

    @property
    def success(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.sandbox_error


class Workspace(Protocol):
    """One sandbox of one episode."""

    name: str
    timeout_s: float  # the longest a command may run

    def bash(self, command: str, cwd: str | None, timeout_s: float) -> Outcome: ...

    def python(self, code: str) -> tuple[str, str, int]: ...

    def close(self) -> None: ...


class LocalWorkspace:
    """Commands in our sandbox (:class:`openenv.sandbox.shell.Shell`)."""

    name = "local"

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits
        self.timeout_s = limits.timeout_s
        self._shell = Shell(limits)
        self._cwd: str | None = None

    def bash(self, command: str, cwd: str | None, timeout_s: float) -> Outcome:
        home = self._home()
        result: ShellResult = self._shell.bash(
            self.map_home(command),
            cwd=self.map_home(cwd) if cwd else None,
            env=SHELL_ENV,
            timeout_s=min(timeout_s, self.timeout_s),
        )
        shown = HOME + result.cwd[len(home) :] if result.cwd.startswith(home) else result.cwd
        return Outcome(
            output=result.text(min(timeout_s, self.timeout_s)),
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            cwd=shown or HOME,
            sandbox_error=result.sandbox_error,
        )

    def python(self, code: str) -> tuple[str, str, int]:
        return self._shell.python(code)

    def map_home(self, text: str) -> str:
        """``/home/user`` (as a path, not inside a longer name) made the sandbox's home."""
        return _HOME_WORD.sub(lambda _: self._home(), text)

    def close(self) -> None:
        self._shell.close()

    def _home(self) -> str:
        if self._shell.home is None:
            self._shell.python("pass")  # starts the sandbox: its home exists from now on
        return self._shell.home or HOME


class E2BWorkspace:
    """Commands in an E2B cloud sandbox (``pip install e2b``; ``E2B_API_KEY``)."""

    name = "e2b"

    def __init__(self, timeout_s: float, sandbox: Any | None = None) -> None:
        self.timeout_s = timeout_s
        self._sandbox = sandbox if sandbox is not None else _create_e2b_sandbox()

    def bash(self, command: str, cwd: str | None, timeout_s: float) -> Outcome:
        mark = "__oe_cwd__"
        script = f"{command}\n__oe_rc=$?; printf '\\n{mark}%s' \"$PWD\"; exit $__oe_rc"
        line = (
            f"cd {shlex.quote(cwd or HOME)} 2>/dev/null || cd {HOME}; bash -c {shlex.quote(script)}"
        )
        timeout = min(timeout_s, self.timeout_s)
        try:
            result = self._sandbox.commands.run(line, timeout=timeout, envs=SHELL_ENV)
            stdout, stderr, code = result.stdout, result.stderr, result.exit_code
        except Exception as exc:  # the SDK raises for a non-zero exit and for a time-out
            stdout = getattr(exc, "stdout", None)
            if stdout is None:
                timed_out = "timeout" in type(exc).__name__.lower() or "timed out" in str(exc)
                note = f"[killed: the command ran longer than {timeout:g} s]"
                why = "" if timed_out else f"e2b: {type(exc).__name__}: {exc}"
                return Outcome(note if timed_out else "", 124, timed_out, cwd or HOME, why)
            stderr, code = getattr(exc, "stderr", ""), int(getattr(exc, "exit_code", 1))
        text, _, where = (stdout or "").rpartition(f"\n{mark}")
        if not _:
            text, where = stdout or "", cwd or HOME
        output = (text + (stderr or "")).rstrip("\n")
        if code:
            output = (output + "\n" if output else "") + f"[exit code {code}]"
        return Outcome(output or "(no output)", code, False, where or HOME)

    def python(self, code: str) -> tuple[str, str, int]:
        path = "/tmp/.oe_tool.py"
        self._sandbox.files.write(path, code)
        try:
            result = self._sandbox.commands.run(f"python3 {path}", timeout=self.timeout_s)
            return result.stdout, result.stderr, result.exit_code
        except Exception as exc:
            stderr = getattr(exc, "stderr", None) or f"{type(exc).__name__}: {exc}"
            return getattr(exc, "stdout", "") or "", stderr, int(getattr(exc, "exit_code", 1))

    def close(self) -> None:
        try:
            self._sandbox.kill()
        except Exception:  # already gone: nothing to free
            pass


def _create_e2b_sandbox() -> Any:
    if not os.environ.get("E2B_API_KEY"):
        raise ProviderError(
            "CODING_TOOLS_PROVIDER=e2b needs E2B_API_KEY (an E2B account's key); unset "
            "CODING_TOOLS_PROVIDER to use the local sandbox"
        )
    try:
        from e2b import Sandbox
    except ImportError as exc:
        raise ProviderError("CODING_TOOLS_PROVIDER=e2b needs the e2b SDK: pip install e2b") from exc
    try:
        return Sandbox.create(timeout=3600)
    except Exception as exc:
        raise ProviderError(
            f"could not create an E2B sandbox: {type(exc).__name__}: {exc}"
        ) from exc


def open_workspace(limits: SandboxLimits, provider: str | None = None) -> Workspace:
    """The workspace of a new episode, from ``provider`` or ``CODING_TOOLS_PROVIDER``."""
    name = (provider or os.environ.get("CODING_TOOLS_PROVIDER") or "local").strip().lower()
    if name == "local":
        return LocalWorkspace(limits)
    if name == "e2b":
        return E2BWorkspace(limits.timeout_s)
    raise ProviderError(f"unknown CODING_TOOLS_PROVIDER {name!r}: use local or e2b")
