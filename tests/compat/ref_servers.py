"""Servers written in the reference's style (``tests/compat/ref_envs``), served by the
``openenv==0.10.0`` package in its own virtualenv, as real subprocesses.

``with ref_server("frames") as server:`` yields a :class:`RefServer` (``.url``) once its
``/health`` answers; ``server.stop()`` takes it down (a remote going away mid-episode).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.compat.refvenv import ensure_ref_venv
from tests.servers import free_port, server_process, stop_process_group, wait_healthy

REF_ENVS = Path(__file__).resolve().parent / "ref_envs"
MODULES = ("literal_grid", "frames", "text", "chess_fen", "mcp_tools")


@dataclass
class RefServer:
    url: str
    process: subprocess.Popen

    def stop(self) -> None:
        stop_process_group(self.process)


@contextlib.contextmanager
def ref_server(module: str, env: dict[str, str] | None = None) -> Iterator[RefServer]:
    python = ensure_ref_venv()
    port = free_port()
    cmd = [
        str(python), "-m", "uvicorn", f"{module}:app", "--host", "127.0.0.1", "--port",
        str(port), "--app-dir", str(REF_ENVS), "--log-level", "warning",
    ]  # fmt: skip
    full_env = {**os.environ, "ENABLE_WEB_INTERFACE": "false", **(env or {})}
    full_env.pop("PYTHONPATH", None)  # the reference's own openenv, not this checkout's
    proc = subprocess.Popen(cmd, cwd=REF_ENVS, env=full_env, start_new_session=True)
    server = RefServer(f"http://127.0.0.1:{port}", proc)  # stop() takes it down mid-test
    try:
        wait_healthy(server.url, proc, timeout=180)
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def openenv_playground(url: str, *args: str) -> Iterator[str]:
    """``openenv playground URL`` in a subprocess, as a user starts it; yield its base URL once
    its ``/health`` answers (which is the remote's, once the remote was described)."""
    import sys

    from tests.servers import ROOT

    port = free_port()
    cmd = [sys.executable, "-m", "openenv.cli", "playground", url, "--host", "127.0.0.1",
           "--port", str(port), *args]  # fmt: skip
    with server_process(cmd, port, cwd=ROOT, env=dict(os.environ), timeout=180) as base:
        yield base
