"""Shared fixtures: real servers in subprocesses on loopback, and a real Chromium."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


# What openenv.cli.serve.run gives uvicorn, as command-line options: the tests run the servers
# users get.
OPENENV_SERVE_ARGS = [
    "--ws",
    "openenv.server.lean_ws:LeanWebSocketProtocol",
    "--ws-per-message-deflate",
    "false",
]


def run_async(coro):
    """Run a coroutine on a fresh loop in its own thread (the session's Playwright browser
    keeps an event loop running in the main thread)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


# Gradio notices a closed browser tab when its next heartbeat (every 15 s) cannot be written,
# and only then runs the playground's unload: a wait for freed sessions allows two of them.
TAB_CLOSE_S = 40.0


def web_sessions(base: str) -> int:
    """Playground sessions open on the server at ``base``."""
    return httpx.get(base + "/web/sessions").json()["by_kind"].get("web", 0)


def wait_web_sessions(base: str, expected: int, timeout: float = TAB_CLOSE_S) -> None:
    deadline = time.monotonic() + timeout
    while web_sessions(base) != expected:
        assert time.monotonic() < deadline, f"expected {expected} playground sessions"
        time.sleep(0.1)


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

    The server gets the WebSocket options ``openenv serve`` uses (``OPENENV_SERVE_ARGS``).

    ``timeout`` bounds the wait for ``/health`` (raise it for apps that import Gradio).
    """
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        app,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        *OPENENV_SERVE_ARGS,
        *(args or []),
    ]
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.Popen(cmd, env=full_env, cwd=cwd or ROOT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base + health_path, proc, timeout)
        yield base
    finally:
        stop_process_group(proc)


@contextlib.contextmanager
def run_app_py(envs_dir: Path) -> Iterator[str]:
    """``python app.py`` (the catalog) as a user runs it, with $PORT and $OPENENV_ENVS_DIR."""
    port = free_port()
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "OPENENV_ENVS_DIR": str(envs_dir)}
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, start_new_session=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc, timeout=120)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process_group(proc)


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Run the ``openenv`` command as a user would (``env`` replaces the environment)."""
    return subprocess.run(
        [sys.executable, "-m", "openenv.cli", *args],
        cwd=cwd,
        env={**(env if env is not None else os.environ), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


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


def step_down_in_the_playground(page) -> None:
    """Click the grid world's Down button; the playground counts one step, the agent moves."""
    page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
    page.click("#oe-stage .oe-act:has-text('Down')")
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="1"]')
    cells = page.locator("#oe-stage .oe-board .oe-cell")
    assert cells.nth(5).get_attribute("title") == "agent"  # row 1, column 0 of the 5x5 grid


@pytest.fixture(scope="module")
def grid_server() -> Iterator[str]:
    """A grid world server with its playground, for the tests of one module."""
    with serve("grid_world_env.server.app:app") as url:
        yield url


@pytest.fixture(scope="session")
def echo_server() -> Iterator[str]:
    """The echo tool environment (API only), shared by the MCP test modules."""
    with serve("echo_env.server.app:app", env={"ENABLE_WEB_INTERFACE": "0"}) as url:
        yield url


@pytest.fixture(scope="session")
def echo_production_server() -> Iterator[str]:
    """The echo tool environment in production mode: tools and health only."""
    env = {"ENABLE_WEB_INTERFACE": "0", "OPENENV_MODE": "production"}
    with serve("echo_env.server.app:app", env=env) as url:
        yield url


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run browser tests last: Playwright's sync API keeps an event loop running in the main
    thread while it is active, which pytest-asyncio tests cannot share."""
    items.sort(key=lambda item: "browser" in getattr(item, "fixturenames", ()))


@pytest.fixture(scope="module")
def browser():
    """A headless Debian Chromium per test module (Playwright cannot download browsers here).

    Module scope: the sync Playwright driver is stopped between modules, so async tests that
    follow get a clean main thread.
    """
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: run `bash tests/run.sh` (it installs Debian's chromium)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class ConsoleLog(list):
    """Console errors and failed requests seen by a page."""


@pytest.fixture
def page(browser):
    """A fresh browser context and page; fails the test on console errors or external requests."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors = ConsoleLog()
    external: list[str] = []
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))

    def check_request(request) -> None:
        url = request.url
        if not url.startswith(
            ("http://127.0.0.1", "http://localhost", "data:", "blob:", "ws://127.0.0.1")
        ):
            external.append(url)

    pg.on("request", check_request)
    pg.console_errors = errors  # type: ignore[attr-defined]
    pg.external_requests = external  # type: ignore[attr-defined]
    yield pg
    context.close()
