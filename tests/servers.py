"""Servers for tests: an env served in this process (the default) or in a subprocess (where a
test needs a process of its own: pausing it, killing it, settings read at import, the CLI).

``served(app)`` runs an ASGI app with uvicorn in a thread of this process, with the WebSocket
settings ``openenv serve`` uses, on a free loopback port: real sockets, real WebSockets, no
interpreter to start. ``api_app(ref)`` builds a fresh API-only server of an env package exactly
like its module's app (same classes, its own sessions). ``env_fixtures(ref, Client)`` is the one
fixture factory for "an env served, a client on it"::

    url, env = env_fixtures("maze_env.server.app:app", MazeEnv)   # module scope, per test

``serve(ref, env=..., args=...)`` is the subprocess variant (``uvicorn`` with the same options).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from openenv.cli.serve import serve_in_thread
from openenv.server import create_app

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 120.0

# What openenv.cli.serve.run gives uvicorn, as command-line options: the tests run the servers
# users get.
OPENENV_SERVE_ARGS = [
    "--ws",
    "openenv.server.lean_ws:LeanWebSocketProtocol",
    "--ws-per-message-deflate",
    "false",
    "--http",
    "openenv.server.guarded_http:GuardedH11Protocol",
    "--ws-max-size",
    str(4 * 2**20),  # openenv.server.limits.ws_max_size() by default
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen | None = None, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with code {proc.returncode} before becoming healthy")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not become healthy within {timeout}s")


# -- in this process -------------------------------------------------------------------------


@contextlib.contextmanager
def served(app: Any, *, ping_s: float = 20.0, ping_timeout_s: float = 20.0) -> Iterator[str]:
    """Serve ``app`` from a thread of this process on a free loopback port; yield its URL.

    The app's lifespan runs (startup before the first request, shutdown at the end), as under
    ``openenv serve``; ``ping_s`` / ``ping_timeout_s`` are the server's WebSocket keepalive.
    """
    with serve_in_thread(
        app,
        start_timeout_s=START_TIMEOUT_S,
        ws_ping_interval=ping_s,
        ws_ping_timeout=ping_timeout_s,
    ) as url:
        yield url


def module_app(ref: str) -> Any:
    """The app ``"module:attribute"`` (``grid_world_env.server.app:app``), imported."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr or "app")


def api_app(ref: str, **settings: Any) -> Any:
    """A fresh API-only server of the app at ``ref``: the same environment, action, observation
    and state classes as that app, sessions of its own, ``create_app`` ``settings``."""
    ctx = module_app(ref).state.openenv
    return create_app(
        ctx.env_factory,
        ctx.action_cls,
        ctx.observation_cls,
        state_cls=ctx.state_cls,
        enable_web=False,
        **settings,
    )


def env_fixtures(ref: str, client_cls: Any, **settings: Any) -> tuple[Any, Any]:
    """``url`` (module scope: one API server of the app at ``ref``) and ``env`` (per test: a
    connected blocking ``client_cls`` on it); assign them to those two names in a test module."""

    @pytest.fixture(scope="module")
    def url() -> Iterator[str]:
        with served(api_app(ref, **settings)) as base:
            yield base

    @pytest.fixture
    def env(url: str) -> Iterator[Any]:
        with client_cls(base_url=url).sync() as client:
            yield client

    return url, env


# -- in a subprocess -------------------------------------------------------------------------


@contextlib.contextmanager
def serve(
    app: str,
    *,
    env: dict[str, str] | None = None,
    args: list[str] | None = None,
    cwd: Path | None = None,
    health_path: str = "",
    timeout: float = 120.0,
) -> Iterator[str]:
    """Run ``uvicorn <app>`` in a subprocess on a free loopback port; yield its base URL.

    The server gets the WebSocket options ``openenv serve`` uses (``OPENENV_SERVE_ARGS``);
    ``timeout`` bounds the wait for ``/health`` (raise it for apps that import Gradio).
    """
    port = free_port()
    cmd = [
        sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port),
        "--log-level", "warning", *OPENENV_SERVE_ARGS, *(args or []),
    ]  # fmt: skip
    full_env = {**os.environ, **(env or {})}
    with server_process(cmd, port, cwd=cwd or ROOT, env=full_env, timeout=timeout,
                        health_path=health_path) as base:  # fmt: skip
        yield base


def artifacts() -> Path:
    """Where browser tests put their screenshots: ``$OPENENV_ARTIFACTS``, else
    ``tests/artifacts/`` (made when missing)."""
    folder = Path(os.environ.get("OPENENV_ARTIFACTS") or ROOT / "tests" / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def catalog_serving(root: Path, packages: Sequence[str]) -> Iterator[str]:
    """The catalog app (``python app.py``'s) serving only the env ``packages`` (folders of
    ``envs/``), in one server process run from ``root``; yield its URL. Several playgrounds in
    one process start much faster than one server each. Chromium asks the site root for a
    favicon: it is answered, so no 404 reaches the page's console."""
    envs = root / "envs"
    envs.mkdir()
    for package in packages:
        (envs / package).symlink_to(ROOT / "envs" / package, target_is_directory=True)
    (root / "catalog_app.py").write_text(
        "from pathlib import Path\n"
        "from fastapi import Response\n"
        "from openenv.web.catalog.app import create_catalog_app\n"
        f"app = create_catalog_app(Path({str(envs)!r}))\n"
        "app.add_api_route('/favicon.ico', lambda: Response(status_code=204), methods=['GET'])\n"
    )
    with serve("catalog_app:app", cwd=root, timeout=240) as url:
        yield url


@contextlib.contextmanager
def server_process(
    cmd: list[str],
    port: int,
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float = 120.0,
    health_path: str = "",
) -> Iterator[str]:
    """Run ``cmd`` (a server listening on ``port``) in its own process group until the block
    ends; yield its base URL once ``/health`` answers."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base + health_path, proc, timeout)
        yield base
    finally:
        stop_process_group(proc)


def stop_process_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
