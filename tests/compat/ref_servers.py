"""Servers written in the reference's style (``tests/compat/ref_envs``), served by the
``openenv==0.10.0`` package in its own virtualenv, as real subprocesses.

``with ref_server("frames") as server:`` yields a :class:`RefServer` (``.url``) once its
``/health`` answers; ``server.stop()`` takes it down (a remote going away mid-episode). Several
start faster together (their imports overlap): ``ref_servers(*MODULES)`` yields them by name,
and ``ref_servers_fixture(*MODULES)`` is that as a module-scoped pytest fixture. Early exits
and timeouts raise with the end of the server's stderr.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

from tests.compat.refvenv import ensure_ref_venv
from tests.servers import ROOT, free_port, server_process, stop_process_group, wait_healthy

REF_ENVS = Path(__file__).resolve().parent / "ref_envs"
MODULES = ("literal_grid", "frames", "text", "chess_fen", "mcp_tools")
START_TIMEOUT_S = 120.0
TAIL_CHARS = 3000


@dataclass
class RefServer:
    """One reference server process: ``url`` to talk to, ``stop()`` to take it down."""

    url: str
    process: subprocess.Popen
    stderr: IO[bytes]  # a file, not a pipe: a pipe nobody reads would block a chatty server

    def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL after a grace period; a no-op once stopped."""
        stop_process_group(self.process)

    def stderr_tail(self) -> str:
        """The end of what the server wrote to stderr so far."""
        size = os.fstat(self.stderr.fileno()).st_size
        start = max(0, size - TAIL_CHARS)
        # pread: the server shares this file's offset, so seeking would move its writes.
        return os.pread(self.stderr.fileno(), size - start, start).decode(errors="replace")

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        """Poll ``/health`` until it answers 200; raise with the stderr tail if it never does."""
        try:
            wait_healthy(self.url, self.process, timeout)
        except (RuntimeError, TimeoutError) as exc:
            self.stop()
            raise RuntimeError(f"{exc}; its stderr ends with:\n{self.stderr_tail()}") from None


@contextlib.contextmanager
def launched(module: str, env: dict[str, str] | None = None) -> Iterator[RefServer]:
    """``uvicorn <module>:app`` of ``ref_envs`` started (not yet waited for); stopped on exit.

    ``env`` adds to this process's environment (``REF_MAX_CONCURRENT_ENVS``, ...).
    """
    python = ensure_ref_venv()
    port = free_port()
    cmd = [
        str(python), "-m", "uvicorn", f"{module}:app", "--host", "127.0.0.1", "--port",
        str(port), "--app-dir", str(REF_ENVS), "--log-level", "warning",
    ]  # fmt: skip
    full_env = {**os.environ, "ENABLE_WEB_INTERFACE": "false", **(env or {})}
    full_env.pop("PYTHONPATH", None)  # the reference's own openenv, not this checkout's
    with tempfile.TemporaryFile() as stderr:
        # cwd is ref_envs: `python -m` puts the cwd first on sys.path, and this checkout's root
        # would shadow the reference's `openenv` with ours.
        proc = subprocess.Popen(
            cmd, cwd=REF_ENVS, env=full_env, stderr=stderr, start_new_session=True
        )
        server = RefServer(f"http://127.0.0.1:{port}", proc, stderr)
        try:
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def ref_server(module: str, env: dict[str, str] | None = None) -> Iterator[RefServer]:
    """The reference server of ``ref_envs/<module>.py``, healthy, until the block ends."""
    with launched(module, env) as server:
        server.wait_ready()
        yield server


@contextlib.contextmanager
def ref_servers(
    *modules: str, env: dict[str, str] | None = None, **named: tuple[str, dict[str, str]]
) -> Iterator[dict[str, RefServer]]:
    """Several reference servers started at once, then waited for; yielded by module name,
    and by keyword for the ``named`` ones, each ``(module, env)`` (a second grid that allows
    one session: ``lone=("literal_grid", {"REF_MAX_CONCURRENT_ENVS": "1"})``)."""
    specs = {m: (m, env) for m in modules} | named
    with contextlib.ExitStack() as stack:
        servers = {name: stack.enter_context(launched(*spec)) for name, spec in specs.items()}
        for server in servers.values():
            server.wait_ready()
        yield servers


def ref_servers_fixture(
    *modules: str, env: dict[str, str] | None = None, **named: tuple[str, dict[str, str]]
) -> Any:
    """``ref_servers(...)`` as a module-scoped fixture; assign it to a name in a test module
    (``servers = ref_servers_fixture(*MODULES)``)."""

    @pytest.fixture(scope="module")
    def fixture() -> Iterator[dict[str, RefServer]]:
        with ref_servers(*modules, env=env, **named) as servers:
            yield servers

    return fixture


@contextlib.contextmanager
def openenv_playground(url: str, *args: str) -> Iterator[str]:
    """``openenv playground URL`` in a subprocess, as a user starts it; yield its base URL once
    its ``/health`` answers (which is the remote's, once the remote was described)."""
    port = free_port()
    cmd = [sys.executable, "-m", "openenv.cli", "playground", url, "--host", "127.0.0.1",
           "--port", str(port), *args]  # fmt: skip
    with server_process(cmd, port, cwd=ROOT, env=dict(os.environ), timeout=180) as base:
        yield base
