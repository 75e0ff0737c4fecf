"""Shared fixtures: real servers on loopback (in this process, or in a subprocess where a test
needs one; see servers.py), and a real Chromium."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

# The helper modules next to this file (servers.py, venvs.py) import by their own names, also
# when this file is imported as tests.conftest (the benchmarks do).
HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from servers import (  # noqa: E402, F401  (re-exported for the test modules)
    OPENENV_SERVE_ARGS,
    ROOT,
    api_app,
    env_fixtures,
    free_port,
    module_app,
    serve,
    served,
    server_process,
    stop_process_group,
    wait_healthy,
)

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
BROWSER_WAIT_MS = 90_000
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


@contextlib.contextmanager
def run_app_py(envs_dir: Path) -> Iterator[str]:
    """``python app.py`` (the catalog) as a user runs it, with $PORT and $OPENENV_ENVS_DIR."""
    port = free_port()
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "OPENENV_ENVS_DIR": str(envs_dir)}
    with server_process([sys.executable, "app.py"], port, cwd=ROOT, env=env) as url:
        yield url


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


def step_down_in_the_playground(page) -> None:
    """Click the grid world's Down button; the playground counts one step, the agent moves."""
    page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
    page.click("#oe-stage .oe-act:has-text('Down')")
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="1"]')
    cells = page.locator("#oe-stage .oe-board .oe-cell")
    assert cells.nth(5).get_attribute("title") == "agent"  # row 1, column 0 of the 5x5 grid


@pytest.fixture(scope="module")
def grid_server() -> Iterator[str]:
    """A grid world server with its playground, for the tests of one module. A process of its
    own: Gradio's queue keeps process-wide state that a page served from the test process
    (next to Playwright's loop) does not survive."""
    with serve("grid_world_env.server.app:app") as url:
        yield url


@pytest.fixture
def hub():
    """A fake Hugging Face Hub for one test (tests/fake_hub.py; ``HF_ENDPOINT`` reaches it)."""
    from fake_hub import fake_hub

    with fake_hub() as server:
        yield server


@pytest.fixture(scope="session")
def echo_server() -> Iterator[str]:
    """The echo tool environment (API only), shared by the MCP test modules."""
    with served(api_app("echo_env.server.app:app")) as url:
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
    # Waits are on conditions; their bound is generous, for a loaded 2-core machine that loads
    # Gradio's bundle slowly (a wait that times out is a failure, never a pause).
    context.set_default_timeout(BROWSER_WAIT_MS)
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
