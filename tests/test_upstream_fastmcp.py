"""A tool env written for ``openenv`` 0.10 with FastMCP (``tests/compat/ref_envs/mcp_tools.py``:
``MCPEnvironment(FastMCP(...))``) runs on our server unchanged, played by our MCP client.

FastMCP 3 pins ``mcp`` 1.x, while this project's SDK bridge needs 2.x: the server runs in a
virtualenv of its own that sees this framework's packages and adds FastMCP (made once, cached).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, free_port, stop_process_group, wait_healthy

from openenv.client import MCPToolClient

pytestmark = pytest.mark.compat

FASTMCP = "fastmcp==3.4.11"
VENV = Path.home() / ".cache" / "openenv-playground" / "fastmcp-venv"


def fastmcp_python() -> Path:
    """A virtualenv over this interpreter's packages (this framework included), with FastMCP."""
    python = VENV / "bin" / "python"
    marker = VENV / ".ready"
    if not marker.is_file() or marker.read_text() != FASTMCP:
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(VENV)],
                       check=True, timeout=300)  # fmt: skip
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", FASTMCP],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        marker.write_text(FASTMCP)
    return python


@pytest.fixture(scope="module")
def notes() -> Iterator[str]:
    python, port = fastmcp_python(), free_port()
    cmd = [str(python), "-m", "uvicorn", "mcp_tools:app", "--app-dir",
           str(ROOT / "tests" / "compat" / "ref_envs"), "--host", "127.0.0.1", "--port", str(port),
           "--log-level", "warning"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(Exception):
            stop_process_group(proc)


def test_the_fastmcp_tools_are_listed_with_their_schemas(notes: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    tools = {t["name"]: t for t in httpx.post(notes + "/mcp", json=body, timeout=30).json()[
        "result"]["tools"]}  # fmt: skip
    assert set(tools) == {"add", "remember", "recall"}
    assert tools["add"]["inputSchema"]["required"] == ["a", "b"]
    assert tools["add"]["description"] == "Add two whole numbers."


def test_our_client_calls_them_and_the_notes_belong_to_the_session(notes: str) -> None:
    with (
        MCPToolClient(base_url=notes).sync() as first,
        MCPToolClient(base_url=notes).sync() as other,
    ):
        first.reset()
        other.reset()
        assert first.call_tool("add", a=2, b="3") == 5  # FastMCP's own validation coerces
        assert first.call_tool("remember", note="milk") == "noted (1)"
        assert first.call_tool("recall") == ["milk"]
        assert other.call_tool("recall") == []


def test_refused_arguments_and_unknown_tools_are_errors_not_crashes(notes: str) -> None:
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    bad = httpx.post(notes + "/mcp", json={**call, "params": {"name": "add", "arguments": {
        "a": "many", "b": 1}}}, timeout=30).json()  # fmt: skip
    assert bad["error"]["code"] == -32602 and bad["error"]["data"]["error_type"] == "invalid_args"
    unknown = httpx.post(notes + "/mcp", json={**call, "params": {"name": "nope"}}, timeout=30)
    assert "available tools: add, remember, recall" in unknown.json()["error"]["message"]
