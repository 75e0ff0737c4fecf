"""Shell commands run *inside* an ``openenv.sandbox.Sandbox``, never on the server.

The sandbox runs Python cells; :class:`Shell` sends one per command: a small helper
(``_HELPER``, standard library only) that starts the program with ``subprocess`` in the
sandbox's working directory, reads its output through a pipe (keeping the first
``output_bytes``, counting the rest), kills its process group when the time limit passes, and
prints one JSON line. The sandbox's own limits (memory, processes, file size, no network, the
host read-only, private ``/tmp``) apply to the command and to everything it starts, and its
own wall-clock limit is set a little above the command's so that a slow command is killed by
the helper and the sandbox (with its files) survives.

``Shell.run(argv)`` runs a program; ``Shell.bash(command, cwd)`` runs a shell command line
and tracks where ``cd`` left the shell. Paths in the output that start with the working
directory are shown from ``~`` (``HOME`` is the working directory), so outputs do not depend
on where the sandbox happens to live.

Used by ``terminus_env`` (a terminal tool) and ``git_env`` (git and the repository's tests).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from openenv.sandbox import Sandbox, SandboxLimits

MARGIN_S = 5.0  # the sandbox's wall clock, above the command's: the helper kills first
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]")

_HELPER = r"""
import json as _oe_json, os as _oe_os, select as _oe_select, signal as _oe_signal
import subprocess as _oe_sp, tempfile as _oe_tempfile, time as _oe_time

_OE_BASH = (
    '__oe_c=$3; __oe_f=$2; cd -- "$1" 2>/dev/null || cd -- "$HOME"; set --; '
    'trap \'pwd >"$__oe_f" 2>/dev/null\' EXIT; eval "$__oe_c"'
)


def _oe_read(fd, proc, spec):
    kept, dropped = bytearray(), 0
    deadline = _oe_time.monotonic() + spec["timeout"]
    timed_out = False
    while True:
        if proc.poll() is not None:  # done: drain briefly, whatever it left running
            deadline = min(deadline, _oe_time.monotonic() + 0.5)
        left = deadline - _oe_time.monotonic()
        if left <= 0:
            timed_out = proc.poll() is None
            break
        ready, _, _ = _oe_select.select([fd], [], [], min(left, 0.05))
        if not ready:
            if proc.poll() is not None and not _oe_select.select([fd], [], [], 0)[0]:
                break
            continue
        try:
            chunk = _oe_os.read(fd, 65536)
        except BlockingIOError:
            continue
        if not chunk:
            break
        room = spec["limit"] - len(kept)
        kept += chunk[:room]
        dropped += max(0, len(chunk) - room)
    return bytes(kept), dropped, timed_out


def _oe_run(spec):
    home = _oe_os.environ["HOME"]
    cwd = spec.get("cwd") or home
    if not _oe_os.path.isdir(cwd):
        if spec.get("bash") is None:  # a program runs where it was asked to, or not at all
            return {"output": f"no such directory: {cwd}\n", "exit_code": 1, "cwd": cwd}
        cwd = home
    env = dict(_oe_os.environ, **spec.get("env", {}))
    argv, cwd_file = spec["argv"], None
    if spec.get("bash") is not None:
        fd, cwd_file = _oe_tempfile.mkstemp(dir="/tmp", prefix=".oe-cwd-")
        _oe_os.close(fd)
        argv = ["bash", "-c", _OE_BASH, "bash", cwd, cwd_file, spec["bash"]]
    try:
        proc = _oe_sp.Popen(
            argv, cwd=cwd, env=env, stdin=_oe_sp.DEVNULL, stdout=_oe_sp.PIPE,
            stderr=_oe_sp.STDOUT, start_new_session=True,
        )
    except OSError as exc:
        return {"output": f"{argv[0]}: {exc.strerror}\n", "exit_code": 127, "cwd": cwd}
    fd = proc.stdout.fileno()
    _oe_os.set_blocking(fd, False)
    kept, dropped, timed_out = _oe_read(fd, proc, spec)
    try:
        _oe_os.killpg(proc.pid, _oe_signal.SIGKILL)
    except OSError:
        pass
    code = proc.wait()
    proc.stdout.close()
    new_cwd = cwd
    if cwd_file is not None:
        try:
            with open(cwd_file, encoding="utf-8", errors="replace") as f:
                seen = f.read().rstrip("\n")
            new_cwd = seen if _oe_os.path.isdir(seen) else cwd
            _oe_os.unlink(cwd_file)
        except OSError:
            pass
    return {
        "output": kept.decode("utf-8", "replace"),
        "dropped": dropped,
        "exit_code": 128 - code if code < 0 else code,
        "timed_out": timed_out,
        "cwd": new_cwd,
    }
"""


@dataclass(frozen=True)
class ShellResult:
    """What one command gave: its output (stdout and stderr merged, as a terminal shows them),
    its exit code, whether it was killed at the time limit, and the directory it ended in."""

    output: str
    exit_code: int
    timed_out: bool = False
    dropped: int = 0  # bytes of output beyond the limit, not kept
    cwd: str = ""  # the directory the shell ended in, on the host ("": unknown)
    sandbox_error: str = ""  # the sandbox itself failed (it restarts, its files are gone)

    @property
    def success(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.sandbox_error

    def text(self, timeout_s: float) -> str:
        """The output as an agent reads it, with a note for a cut, a kill or an exit code."""
        parts = [self.output.rstrip("\n")] if self.output.strip() else []
        if self.dropped:
            parts.append(f"[... {self.dropped} more bytes of output not shown]")
        if self.sandbox_error:
            parts.append(self.sandbox_error.rstrip("\n"))
        elif self.timed_out:
            parts.append(f"[killed: the command ran longer than {timeout_s:g} s]")
        elif self.exit_code != 0:
            parts.append(f"[exit code {self.exit_code}]")
        return "\n".join(parts) if parts else "(no output)"


def shell_limits(base: SandboxLimits | None = None) -> SandboxLimits:
    """The sandbox limits for shell commands: ``CODING_*`` (coding_env's), with the sandbox's
    wall clock above the command's and room for the JSON-escaped output."""
    limits = base or SandboxLimits.from_env()
    return dataclasses.replace(
        limits,
        timeout_s=limits.timeout_s + MARGIN_S,
        output_bytes=6 * limits.output_bytes + 8192,
    )


class Shell:
    """Commands in one sandbox; the sandbox (and its working directory) starts on first use."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits  # the command's limits (as configured), not the sandbox's
        self.timeout_s = limits.timeout_s
        self._sandbox = Sandbox(shell_limits(limits))

    @property
    def home(self) -> str | None:
        """The working directory, on the host; None before the first command."""
        return self._sandbox.workdir

    def run(
        self,
        argv: list[str],
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> ShellResult:
        """Run the program ``argv`` in ``cwd`` (default: the working directory); a missing
        ``cwd`` is an error (exit code 1), not a fallback."""
        return self._call({"argv": argv, "cwd": cwd, "env": dict(env or {})}, timeout_s)

    def bash(
        self,
        command: str,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> ShellResult:
        """Run a bash command line in ``cwd`` (``~`` when it is gone); ``result.cwd`` is where
        it left the shell. ``timeout_s`` may only shorten the configured limit."""
        spec = {"argv": [], "bash": command, "cwd": cwd, "env": dict(env or {})}
        return self._call(spec, timeout_s)

    def python(self, code: str) -> tuple[str, str, int]:
        """Run trusted Python (the env's own checks) in the sandbox: (stdout, stderr, code)."""
        result = self._sandbox.run(code)
        return result.stdout, result.stderr, result.exit_code

    def close(self) -> None:
        self._sandbox.close()

    def _call(self, spec: dict, timeout_s: float | None) -> ShellResult:
        spec["timeout"] = min(timeout_s or self.timeout_s, self.timeout_s)
        spec["limit"] = self.limits.output_bytes
        payload = json.dumps(spec)
        code = f"{_HELPER}\nprint(_oe_json.dumps(_oe_run(_oe_json.loads({payload!r})), "
        code += "ensure_ascii=False))"
        result = self._sandbox.run(code)
        try:
            answer = json.loads(result.stdout)
        except ValueError:
            why = result.stderr.strip() or f"sandbox: exit status {result.exit_code}"
            return ShellResult("", result.exit_code or 1, sandbox_error=why)
        home = self._sandbox.workdir
        return ShellResult(
            output=clean(answer["output"], home),
            exit_code=int(answer["exit_code"]),
            timed_out=bool(answer.get("timed_out")),
            dropped=int(answer.get("dropped", 0)),
            cwd=str(answer.get("cwd") or home or ""),
        )


def clean(text: str, home: str | None) -> str:
    """Terminal output made plain: escape sequences and control characters removed (tabs and
    newlines kept, ``\\r\\n`` read as a newline), the working directory shown as ``~``."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n"))
    return text.replace(home, "~") if home else text


def tilde(path: str, home: str | None) -> str:
    """``path`` from ``~`` when it lies in the working directory."""
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path or "~"


def untilde(path: str, home: str | None) -> str:
    """A ``~`` path back to the real one (inside the sandbox both are the same directory)."""
    if home and (path == "~" or path.startswith("~/")):
        return home + path[1:]
    return path
