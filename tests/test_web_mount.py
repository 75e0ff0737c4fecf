"""The playground under a prefix (as the catalog mounts it), with a full server, and behind a
token with idle expiry."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from stagewait import click_reset

from tests.conftest import ROOT, serve
from tests.wire_apps import PREFIX

pytestmark = pytest.mark.browser

TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def mounted():
    args = ["--app-dir", str(ROOT / "tests"), "--factory"]
    with serve("wire_apps:grid_under_prefix", args=args, health_path=PREFIX) as url:
        yield url + PREFIX


@pytest.fixture(scope="module")
def locked():
    env = {"OPENENV_API_TOKEN": TOKEN, "SESSION_TIMEOUT_S": "1.5"}
    with serve("grid_world_env.server.app:app", env=env) as url:
        yield url


def sessions(base: str) -> dict:
    return httpx.get(base + "/web/sessions").json()


def wait_until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.1)


def test_playground_works_under_a_prefix_and_a_full_server_says_so(page, browser, mounted):
    page.goto(mounted + "/web/")
    page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="1"]')
    href = page.get_attribute("#oe-stage a.oe-dl:has-text('JSONL')", "href")
    line = json.loads(page.context.request.get(f"{mounted}/web/{href}").text())
    assert line["action"]["action"] == "DOWN"
    assert sessions(mounted)["active"] == 1

    second = browser.new_context().new_page()
    try:
        second.goto(mounted + "/web/")
        message = second.locator("#oe-stage .oe-msg-error")
        message.wait_for()
        assert "server is full" in message.inner_text()
        assert second.locator("#oe-stage .oe-act").count() == 0
        assert sessions(mounted)["active"] == 1
        page.context.close()  # the first visitor leaves: its slot frees up
        wait_until(lambda: sessions(mounted)["active"] == 0)
        click_reset(second)
        second.wait_for_selector("#oe-stage .oe-act:not([disabled])")
        assert sessions(mounted)["active"] == 1
    finally:
        second.context.close()


def test_a_token_is_asked_before_any_session_opens(page, locked):
    page.goto(locked + "/web/")
    page.wait_for_selector("#oe-token input")
    assert page.locator("#oe-stage .oe-act").count() == 0
    assert sessions(locked)["active"] == 0
    page.fill("#oe-token input", "wrong")
    page.click("#oe-unlock")
    page.locator("#oe-lock-msg .oe-error").wait_for()
    assert "not this server's API token" in page.inner_text("#oe-lock-msg")
    assert sessions(locked)["active"] == 0

    page.fill("#oe-token input", TOKEN)
    page.click("#oe-unlock")
    page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
    assert sessions(locked)["active"] == 1
    assert page.locator("#oe-token").is_hidden()

    # Idle past SESSION_TIMEOUT_S: the manager reaps the session and the page says so.
    wait_until(lambda: sessions(locked)["active"] == 0)
    page.keyboard.press("ArrowDown")
    expired = page.locator("#oe-stage .oe-msg-error")
    expired.wait_for()
    assert "Session expired" in expired.inner_text()
    click_reset(page)
    page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
    assert page.get_attribute("#oe-stage .oe-stage", "data-steps") == "0"
    assert page.console_errors == []
    assert page.external_requests == []


def test_without_gradio_the_server_serves_its_api_and_says_what_to_install():
    """A missing optional piece is named with its install command; the server still runs."""
    code = (
        "import logging, sys\n"
        "sys.modules['gradio'] = None  # as if it were not installed\n"
        "logging.basicConfig(level=logging.WARNING)\n"
        "from fastapi.testclient import TestClient\n"
        "from grid_world_env.server.environment import GridWorldEnvironment\n"
        "from openenv.server import create_app\n"
        "with TestClient(create_app(GridWorldEnvironment)) as client:\n"
        "    print(client.get('/health').json(), client.get('/web/').status_code)\n"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "{'status': 'healthy'} 404"
    assert "pip install gradio" in out.stderr and "serving the API only" in out.stderr
