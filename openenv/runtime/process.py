"""LocalProcessProvider: run an environment server with uvicorn in a child process.

The default provider: no Docker, no network, one Python process per server on a free
loopback port. The server lives in its own process group and watches a pipe held by this
process, so it dies with us even when we are killed with SIGKILL (see ``_child``). One caveat:
a child forked without exec (``multiprocessing`` with the "fork" start method) inherits that
pipe, and the server then also waits for that child to exit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from openenv.core.errors import ProviderError
from openenv.runtime.base import Provider

STOP_GRACE_S = 5.0


def app_of_package(package: str) -> str:
    """``"grid_world_env"`` → ``"grid_world_env.server.app:app"`` (the env package layout)."""
    return f"{package}.server.app:app"


class LocalProcessProvider(Provider):
    """Serve ``app`` (``"module:attribute"``) from a child Python process on loopback.

    ``env_vars`` are added to this process's environment for the child; ``port`` pins the port
    (default: a free one); ``cwd`` is the child's working directory; ``python`` the interpreter.
    """

    def __init__(
        self,
        app: str,
        *,
        env_vars: Mapping[str, str] | None = None,
        port: int | None = None,
        host: str = "127.0.0.1",
        cwd: str | Path | None = None,
        python: str = sys.executable,
        log_level: str = "warning",
    ) -> None:
        super().__init__()
        self.app = app
        self.env_vars = dict(env_vars or {})
        self.port = port
        self.host = host
        self.cwd = cwd
        self.python = python
        self.log_level = log_level
        self._proc: subprocess.Popen[bytes] | None = None
        self._watch_w: int | None = None
        # Lives as long as the provider, so logs() still works after the server stopped.
        self._log = tempfile.TemporaryFile(prefix="openenv-server-")  # noqa: SIM115

    def __repr__(self) -> str:
        return f"LocalProcessProvider({self.app!r}, url={self.base_url!r}, pid={self.pid})"

    def respawn(self) -> LocalProcessProvider:
        return LocalProcessProvider(
            self.app, env_vars=self.env_vars, port=self.port, host=self.host, cwd=self.cwd,
            python=self.python, log_level=self.log_level,
        )  # fmt: skip

    @property
    def pid(self) -> int | None:
        """The server's process id (also its process group id) while it runs."""
        return self._proc.pid if self._proc is not None else None

    def _listen(self) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port or 0))
        except OSError as exc:
            sock.close()
            raise ProviderError(
                f"cannot listen on {self.host}:{self.port}: {exc}; pass port=None for a free one"
            ) from exc
        sock.listen(2048)
        sock.set_inheritable(True)
        return sock

    def _start(self) -> str:
        sock = self._listen()
        watch_r, self._watch_w = os.pipe()
        cmd = [
            self.python, "-m", "openenv.runtime._child", self.app,
            "--listen-fd", str(sock.fileno()), "--watch-fd", str(watch_r),
            "--log-level", self.log_level,
        ]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env_vars}
        try:
            self._proc = subprocess.Popen(
                cmd, env=env, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=self._log,
                stderr=subprocess.STDOUT, pass_fds=(sock.fileno(), watch_r),
                start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            os.close(self._watch_w)
            self._watch_w = None
            raise ProviderError(f"cannot run {self.python}: {exc}") from exc
        finally:
            os.close(watch_r)
            port = sock.getsockname()[1]
            sock.close()
        return f"http://{self.host}:{port}"

    def is_alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def logs(self, tail: int = 100) -> str:
        self._log.flush()
        self._log.seek(0)
        lines = self._log.read().decode("utf-8", "replace").splitlines()
        return "\n".join(lines[-tail:])

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if self._watch_w is not None:
            os.close(self._watch_w)
            self._watch_w = None
        if proc is None:
            return
        _signal_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait(timeout=STOP_GRACE_S)
        _signal_group(proc.pid, signal.SIGKILL)  # children the server left behind


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
