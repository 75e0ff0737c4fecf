"""Where a task's commands run: ``TB2_MODE=local`` (the default) or ``docker``.

* :class:`LocalRunner`: our per-session sandbox (:mod:`openenv.sandbox`: no network, the host
  read-only, limits on time, memory, processes, file size and output, from the manifest's
  ``sandbox:`` block and ``CODING_*``). No image is built: the files the task's Dockerfile
  copies into ``/app`` are written to the sandbox's private working directory, which stands
  for ``/app`` (commands and test files naming ``/app`` are pointed at it). Processes end with
  their command, so background sessions need Docker mode.
* :class:`DockerRunner`: the task's own image (its Dockerfile built on the local engine, or
  the image ``task.toml`` names, never pulled) and one container per episode: no network,
  capabilities dropped but for file ownership, memory and process limits, removed at close
  (labelled like :mod:`openenv.runtime.docker_provider`'s containers, so an orphan is
  reaped). Background sessions (``exec`` with ``block=False``, ``write``, ``view``, ``kill``)
  live in it.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shlex
import socket
import tarfile
from dataclasses import dataclass
from typing import Protocol

from openenv.sandbox import SandboxLimits
from openenv.sandbox.shell import Shell
from tbench2_env.server.taskset import WORKDIR, Task

SHELL_ENV = {"TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "PYTHONDONTWRITEBYTECODE": "1"}
_APP_WORD = re.compile(r"(?<![\w./-])/app(?=$|[/\s'\"`;:|&<>)}])")
_LOGS_WORD = re.compile(r"(?<![\w./-])/logs(?=$|[/\s'\"`;:|&<>)}])")
LOCAL_LOGS = "/tmp/tb2-logs"  # /logs (Terminal-Bench 2's verifier output) in the local sandbox
_TILDE = re.compile(r"(?<![\w~/.-])~(?=/|\s|$|[:'\")])")  # the home, as Shell shows it
META = "__tb2_meta__"


class RunnerError(RuntimeError):
    """The mode cannot do this (say why and what to set)."""


@dataclass(frozen=True)
class Outcome:
    """A command's output (stdout and stderr merged, bounded), exit code, time-out, and the
    directory it left the shell in (as the agent sees it: under ``/app``)."""

    output: str
    exit_code: int
    timed_out: bool = False
    cwd: str = WORKDIR

    @property
    def success(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


class Runner(Protocol):
    mode: str
    test_dir: str

    def exec(
        self, command: str, cwd: str, timeout_s: float, env: dict | None = None
    ) -> Outcome: ...

    def put_files(self, directory: str, files: dict[str, tuple[bytes, bool]]) -> None: ...

    def start_session(self, session_id: str, command: str, cwd: str) -> str: ...

    def send(self, session_id: str, text: str) -> None: ...

    def read(self, session_id: str, offset: int, limit: int) -> tuple[str, int, int | None]: ...

    def kill(self, session_id: str) -> None: ...

    def close(self) -> None: ...


class LocalRunner:
    """Commands in our sandbox; its working directory plays ``/app``."""

    mode = "local"
    test_dir = "/tmp/tb2-tests"

    def __init__(self, task: Task, limits: SandboxLimits) -> None:
        self.limits = limits
        self._shell = Shell(limits)
        self.put_files(WORKDIR, task.workdir_files())

    def exec(self, command: str, cwd: str, timeout_s: float, env: dict | None = None) -> Outcome:
        home = self._home()
        result = self._shell.bash(
            self.map_app(command),
            cwd=self.map_app(cwd),
            env={**SHELL_ENV, **(env or {})},
            timeout_s=min(timeout_s, self.limits.timeout_s),
        )
        where = result.cwd
        shown = WORKDIR + where[len(home) :] if where.startswith(home) else where or WORKDIR
        text = _TILDE.sub(WORKDIR, result.text(min(timeout_s, self.limits.timeout_s)))
        if result.sandbox_error:
            return Outcome(text, result.exit_code or 1, False, WORKDIR)
        return Outcome(text, result.exit_code, result.timed_out, shown)

    def put_files(self, directory: str, files: dict[str, tuple[bytes, bool]]) -> None:
        if not files:
            return
        payload = {
            rel: [base64.b64encode(self._mapped(rel, data)).decode(), executable]
            for rel, (data, executable) in files.items()
        }
        if directory.startswith("/tmp/"):  # the sandbox's own /tmp
            base = repr(directory)
        else:  # under /app: the working directory
            base = f"os.path.join(os.environ['HOME'], {self._rel(directory)!r})"
        code = (
            "import base64, json, os\n"
            f"base = {base}\n"
            f"for rel, (data, x) in json.loads({json.dumps(payload)!r}).items():\n"
            "    path = os.path.normpath(os.path.join(base, rel))\n"
            "    os.makedirs(os.path.dirname(path), exist_ok=True)\n"
            "    with open(path, 'wb') as f:\n"
            "        f.write(base64.b64decode(data))\n"
            "    os.chmod(path, 0o755 if x else 0o644)\n"
        )
        _, stderr, status = self._shell.python(code)
        if status != 0:
            raise RunnerError(f"could not write the task's files: {stderr.strip()[-300:]}")

    def start_session(self, session_id: str, command: str, cwd: str) -> str:
        raise RunnerError(
            "background sessions need TB2_MODE=docker: the local sandbox ends every process "
            "with its command (run it with block=true, or in the background within one command)"
        )

    send = read = kill = start_session  # type: ignore[assignment]

    def map_app(self, text: str) -> str:
        """``/app`` (as a path) pointed at the sandbox's working directory, and ``/logs`` at
        a folder of its private ``/tmp`` (the host's are read-only there)."""
        return _LOGS_WORD.sub(LOCAL_LOGS, _APP_WORD.sub(lambda _: self._home(), text))

    def close(self) -> None:
        self._shell.close()

    def _mapped(self, rel: str, data: bytes) -> bytes:
        if rel.endswith((".py", ".sh")) and (b"/app" in data or b"/logs" in data):
            return self.map_app(data.decode("utf-8", "replace")).encode()
        return data

    def _rel(self, directory: str) -> str:
        return directory[len(WORKDIR) :].lstrip("/") if directory.startswith(WORKDIR) else ""

    def _home(self) -> str:
        if self._shell.home is None:
            self._shell.python("pass")
        return self._shell.home or WORKDIR


class DockerRunner:
    """Commands in a container of the task's image on the local Docker engine."""

    mode = "docker"
    test_dir = "/tests"

    def __init__(self, task: Task, limits: SandboxLimits) -> None:
        from openenv.runtime.docker_provider import (
            LABEL_MANAGED,
            LABEL_OWNER_HOST,
            LABEL_OWNER_PID,
            docker_client,
            remove_stale_containers,
        )

        self.limits = limits
        try:
            self._client = docker_client()
        except Exception as exc:
            raise RunnerError(f"TB2_MODE=docker: {exc}") from exc
        remove_stale_containers(self._client)
        image = self._image(task)
        labels = {
            LABEL_MANAGED: "1",
            LABEL_OWNER_PID: str(os.getpid()),
            LABEL_OWNER_HOST: socket.gethostname(),
            "org.openenv.tbench2.task": task.task_id,
        }
        self._container = self._client.containers.run(
            image,
            command=["sleep", "infinity"],
            detach=True,
            working_dir=WORKDIR,
            network_mode="none",
            mem_limit=f"{limits.memory_mb}m",
            pids_limit=max(64, limits.processes * 2),
            cap_drop=["ALL"],
            cap_add=["CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETUID", "SETGID"],
            security_opt=["no-new-privileges"],
            labels=labels,
        )
        self._exec_raw(f"mkdir -p {WORKDIR} /tmp/.tb2")

    def exec(self, command: str, cwd: str, timeout_s: float, env: dict | None = None) -> Outcome:
        timeout = max(1, int(min(timeout_s, self.limits.timeout_s)))
        inner = (
            f'cd -- "$1" 2>/dev/null || cd {WORKDIR}; trap \'pwd > /tmp/.tb2/cwd\' EXIT; eval "$2"'
        )
        limit = self.limits.output_bytes
        line = (
            f"timeout -s KILL {timeout} bash -c {shlex.quote(inner)} bash {shlex.quote(cwd)} "
            f"{shlex.quote(command)} < /dev/null > /tmp/.tb2/out 2>&1; rc=$?; "
            f"head -c {limit} /tmp/.tb2/out; size=$(stat -c %s /tmp/.tb2/out); "
            f'printf "\\n{META} %s %s %s" "$rc" "$size" "$(cat /tmp/.tb2/cwd 2>/dev/null)"'
        )
        output = self._exec_raw(line, env={**SHELL_ENV, **(env or {})})
        text, _, meta = output.rpartition(f"\n{META} ")
        parts = meta.split(" ", 2)
        try:
            rc, size = int(parts[0]), int(parts[1])
        except (ValueError, IndexError):
            return Outcome(output.strip() or "(no output)", 1)
        where = parts[2].strip() if len(parts) > 2 and parts[2].strip() else cwd
        timed_out = rc == 137
        notes = [text.rstrip("\n")] if text.strip() else []
        if size > limit:
            notes.append(f"[... {size - limit} more bytes of output not shown]")
        if timed_out:
            notes.append(f"[killed: the command ran longer than {timeout} s]")
        elif rc:
            notes.append(f"[exit code {rc}]")
        return Outcome(
            "\n".join(notes) or "(no output)", 124 if timed_out else rc, timed_out, where
        )

    def put_files(self, directory: str, files: dict[str, tuple[bytes, bool]]) -> None:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as archive:
            for rel, (data, executable) in files.items():
                info = tarfile.TarInfo(rel)
                info.size, info.mode = len(data), 0o755 if executable else 0o644
                archive.addfile(info, io.BytesIO(data))
        self._exec_raw(f"mkdir -p {shlex.quote(directory)}")
        if not self._container.put_archive(directory, buffer.getvalue()):
            raise RunnerError(f"could not copy files into {directory}")

    def start_session(self, session_id: str, command: str, cwd: str) -> str:
        s = f"/tmp/.tb2/s-{session_id}"
        script = (
            f"rm -f {s}.in {s}.out {s}.rc; mkfifo {s}.in; : > {s}.out; "
            f"(sleep infinity > {s}.in & echo $! > {s}.hold; "
            f"cd -- {shlex.quote(cwd)} 2>/dev/null || cd {WORKDIR}; "
            f"bash -c {shlex.quote(command)} < {s}.in >> {s}.out 2>&1; echo $? > {s}.rc; "
            f"kill $(cat {s}.hold) 2>/dev/null) > /dev/null 2>&1 &"
        )
        self._container.exec_run(["bash", "-c", script], environment=SHELL_ENV, detach=True)
        return session_id

    def send(self, session_id: str, text: str) -> None:
        s = f"/tmp/.tb2/s-{session_id}"
        data = base64.b64encode(text.encode()).decode()
        self._exec_raw(f"test -p {s}.in && printf %s {data} | base64 -d > {s}.in")

    def read(self, session_id: str, offset: int, limit: int) -> tuple[str, int, int | None]:
        """Output from byte ``offset`` (at most ``limit`` bytes), the new offset, the exit
        code when the session has ended."""
        s = f"/tmp/.tb2/s-{session_id}"
        out = self._exec_raw(
            f"tail -c +{offset + 1} {s}.out 2>/dev/null | head -c {limit}; "
            f'printf "\\n{META} %s" "$(cat {s}.rc 2>/dev/null)"'
        )
        text, _, rc = out.rpartition(f"\n{META} ")
        code = int(rc) if rc.strip().lstrip("-").isdigit() else None
        return text, offset + len(text.encode()), code

    def kill(self, session_id: str) -> None:
        s = f"/tmp/.tb2/s-{session_id}"
        self._exec_raw(f"pkill -KILL -f {s}.in; kill $(cat {s}.hold 2>/dev/null) 2>/dev/null; true")

    def close(self) -> None:
        try:
            self._container.remove(force=True)
        except Exception:  # already gone
            pass

    def _exec_raw(self, line: str, env: dict | None = None) -> str:
        result = self._container.exec_run(["bash", "-c", line], environment=env or SHELL_ENV)
        return (result.output or b"").decode("utf-8", "replace")

    def _image(self, task: Task) -> str:
        import docker.errors

        if task.dockerfile is None:
            if not task.docker_image:
                raise RunnerError(f"task {task.task_id} has neither a Dockerfile nor an image")
            try:
                self._client.images.get(task.docker_image)
            except docker.errors.ImageNotFound as exc:
                raise RunnerError(
                    f"the image {task.docker_image} of task {task.task_id} is not on the "
                    "engine (nothing is pulled here)"
                ) from exc
            return task.docker_image
        tag = f"openenv-tb2/{task.task_id.lower()}:{task.fingerprint()}"
        if not self._client.images.list(name=tag):
            try:
                self._client.images.build(
                    path=str(task.context),
                    dockerfile=str(task.dockerfile.relative_to(task.context)),
                    tag=tag,
                    rm=True,
                    pull=False,
                    network_mode="none",
                )
            except docker.errors.BuildError as exc:
                raise RunnerError(f"could not build task {task.task_id}'s image: {exc}") from exc
        return tag


def open_runner(task: Task, limits: SandboxLimits, mode: str | None = None) -> Runner:
    """The runner of a new episode, from ``mode`` or ``TB2_MODE``."""
    name = (mode or os.environ.get("TB2_MODE") or "local").strip().lower()
    if name == "local":
        return LocalRunner(task, limits)
    if name == "docker":
        return DockerRunner(task, limits)
    raise RunnerError(f"unknown TB2_MODE {name!r}: use local or docker")
