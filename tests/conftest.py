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


def unfold(page, panel: str, inside: str) -> None:
    """Open the playground's folded panel ``panel`` ("oe-options": Reset options, "oe-autoplay",
    "oe-dev": Developer) unless ``inside`` (a selector of its content) is drawn already."""
    if page.locator(inside).count() == 0:
        page.click(f"#{panel} > button.label-wrap")
    page.wait_for_selector(inside)


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


# The suite in two halves that run side by side (tests/run.sh: `--lane 1` and `--lane 2`, two
# pytest processes): lane 1 is the browser tests and every test that starts Docker containers
# (both mostly waiting on other processes: Chromium, servers, containers), lane 2 everything
# else. The container tests run first in lane 1, never beside a browser test: a container's
# network coming or going makes Chromium drop its requests (net::ERR_NETWORK_CHANGED).
LANE_1_MODULES = (
    "test_ref_validate_packages.py",
    "test_docker_lane.py",
    "test_docker_provider.py",
    "test_env_tbench2.py",
    "test_runtime_errors.py",
    "test_validation_docker.py",
    "test_harbor_docker.py",
    "test_harbor_npm_harnesses.py",  # coding agents in sandboxes: minutes spent waiting on them
    "test_harbor_training.py",
    "test_pool_ray.py",  # a Ray cluster of local nodes: mostly waiting on its processes
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--lane",
        choices=("1", "2"),
        default=None,
        help="run one half of the suite: 1, the browser tests and the Docker package lane; "
        "2, the rest (tests/run.sh runs both side by side)",
    )


def _lane(item: pytest.Item) -> str:
    in_browser = "browser" in getattr(item, "fixturenames", ())
    return "1" if in_browser or item.path.name in LANE_1_MODULES else "2"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the asked lane's tests (``--lane``), and run browser tests last: Playwright's sync
    API keeps an event loop running in the main thread while it is active, which
    pytest-asyncio tests cannot share."""
    lane = config.getoption("--lane")
    if lane is not None:
        kept = [item for item in items if _lane(item) == lane]
        config.hook.pytest_deselected(items=[item for item in items if _lane(item) != lane])
        items[:] = kept
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
    # Leave the page as a visitor closing the tab does (pagehide frees its playground session
    # at once; Playwright's close() fires no unload events, which leaves it to Gradio's
    # heartbeat, half a minute later).
    with contextlib.suppress(Exception):
        pg.goto("about:blank", timeout=10_000)
    context.close()
