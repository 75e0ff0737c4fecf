"""Three clients list and call echo's tools: ours, the official MCP SDK, and openenv 0.10.x."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from echo_env import CallToolAction, EchoEnv, ListToolsAction, ListToolsObservation

from openenv.client.mcp import ToolCallError

COMPAT = Path(__file__).resolve().parent / "compat"


def run_in_thread(check: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
    """Run an async check on its own loop in a worker thread: once Playwright's sync API has
    started (the session's browser fixture), the main thread already has a running loop."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, check(*args)).result()


# -- our client -----------------------------------------------------------------------------------


def test_our_async_client_lists_and_calls_tools(echo_server: str) -> None:
    run_in_thread(our_async_client_session, echo_server)


async def our_async_client_session(echo_server: str) -> None:
    async with EchoEnv(base_url=echo_server) as env:
        first = await env.reset()
        assert first.observation.metadata["message"] == "Echo environment ready!"
        tools = await env.list_tools()
        assert [t.name for t in tools] == ["echo_message", "echo_with_length"]
        assert tools[0].input_schema["required"] == ["message"]
        assert await env.call_tool("echo_message", message="Hello, OpenEnv!") == "Hello, OpenEnv!"
        assert await env.call_tool("echo_with_length", message="abc") == {
            "message": "abc",
            "length": 3,
        }


def test_a_large_tool_result_travels_once_and_reads_the_same() -> None:
    """Past LARGE_RESULT_CHARS a result's value is sent once, as the text every MCP client
    reads (not three times: text, structured content, data); our client reads it the same."""
    from servers import served

    from openenv.client.tool_client import MCPToolClient
    from openenv.core.mcp import LARGE_RESULT_CHARS, MCPEnvironment, tool, tool_result, tool_value
    from openenv.server import create_app

    size = LARGE_RESULT_CHARS + 10
    wrapped = tool_result({"text": "x" * size})
    assert set(wrapped) == {"content", "is_error", "data_in_text"}
    assert tool_value(wrapped) == {"text": "x" * size}
    assert tool_value(tool_result("y" * size)) == "y" * size and tool_value(tool_result([1])) == [1]

    class Blobs(MCPEnvironment):
        @tool
        def blob(self, n: int) -> dict[str, Any]:
            """A text of n characters."""
            return {"text": "x" * min(n, 4 * LARGE_RESULT_CHARS)}

    async def session(url: str) -> None:
        async with MCPToolClient(base_url=url) as env:
            await env.reset()
            assert await env.call_tool("blob", n=size) == {"text": "x" * size}
            assert await env.call_tool("blob", n=3) == {"text": "xxx"}

    with served(create_app(Blobs, enable_web=False)) as url:
        run_in_thread(session, url)


def test_our_sync_client_steps_with_tool_actions_and_gets_rewards(echo_server: str) -> None:
    with EchoEnv(base_url=echo_server).sync() as env:
        env.reset()
        action = CallToolAction(tool_name="echo_message", arguments={"message": "Hello, World!"})
        result = env.step(action)
        assert result.observation.result["data"] == "Hello, World!"
        assert result.reward == 0.0
        listed = env.step(ListToolsAction())
        assert isinstance(listed.observation, ListToolsObservation)
        assert env.call_tool("echo_message", message="sync") == "sync"
        assert env.state().step_count == 2


def test_our_client_reports_refused_tools(echo_server: str) -> None:
    with EchoEnv(base_url=echo_server).sync() as env:
        with pytest.raises(ToolCallError, match="reserved for the orchestrator"):
            env.call_tool("reset")
        with pytest.raises(ToolCallError, match="message"):
            env.call_tool("echo_message", text="wrong argument name")


def test_our_client_uses_tools_in_production_mode(echo_production_server: str) -> None:
    with EchoEnv(base_url=echo_production_server).sync() as env:
        assert env.call_tool("echo_message", message="prod") == "prod"
        with pytest.raises(Exception, match="production mode"):
            env.reset()


# -- the official MCP SDK -----------------------------------------------------------------------


def test_official_mcp_client_session_lists_and_calls_tools(echo_server: str) -> None:
    run_in_thread(official_client_session, echo_server)


async def official_client_session(echo_server: str) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    url = echo_server + "/mcp"
    async with (
        streamable_http_client(url) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "echo"
        listed = await session.list_tools()
        assert [t.name for t in listed.tools] == ["echo_message", "echo_with_length"]
        assert listed.tools[0].input_schema["properties"]["message"]["type"] == "string"
        result = await session.call_tool("echo_with_length", {"message": "four"})
        assert result.is_error is False
        assert result.structured_content == {"result": {"message": "four", "length": 4}}
        refused = await session.call_tool("step", {})
        assert refused.is_error is True
        assert "reserved for the orchestrator" in refused.content[0].text


def test_official_mcp_client_auto_mode_works_in_production(echo_production_server: str) -> None:
    run_in_thread(official_client_auto_mode, echo_production_server)


async def official_client_auto_mode(echo_production_server: str) -> None:
    from mcp import Client

    async with Client(echo_production_server + "/mcp") as client:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} == {"echo_message", "echo_with_length"}
        result = await client.call_tool("echo_message", {"message": "hi"})
        assert result.content[0].text == "hi"


# -- the openenv 0.10.x client ------------------------------------------------------------------

REF_SCRIPT = """
import asyncio, json, sys
from openenv.core.mcp_client import MCPToolClient
from openenv.core.env_server.mcp_types import CallToolAction

async def use(url, simulate):
    out = {}
    async with MCPToolClient(base_url=url) as env:
        out["tools"] = [t.name for t in await env.list_tools()]
        out["schema"] = (await env.get_tool("echo_message")).input_schema
        out["echo"] = await env.call_tool("echo_message", message="Hello!")
        out["length"] = await env.call_tool("echo_with_length", message="Hello!")
        try:
            await env.call_tool("reset")
        except RuntimeError as exc:
            out["reserved"] = str(exc)
        if simulate:
            reset = await env.reset()
            out["ready"] = reset.observation.metadata["message"]
            step = await env.step(CallToolAction(tool_name="echo_message",
                                                 arguments={"message": "step"}))
            out["step"] = [step.observation.result["data"], step.reward]
        else:
            try:
                await env.reset()
            except RuntimeError as exc:
                out["reset_refused"] = str(exc)
    return out

async def main(simulation_url, production_url):
    print(json.dumps({"simulation": await use(simulation_url, True),
                      "production": await use(production_url, False)}))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


@pytest.fixture(scope="module")
def reference_client_run(echo_server: str, echo_production_server: str, tmp_path_factory) -> dict:
    """One run of the openenv 0.10.x MCPToolClient against both servers (its import is slow)."""
    sys.path.insert(0, str(COMPAT))
    from refvenv import ensure_ref_venv

    workdir = tmp_path_factory.mktemp("ref-client")
    script = workdir / "ref_mcp_client.py"
    script.write_text(textwrap.dedent(REF_SCRIPT))
    done = subprocess.run(
        [str(ensure_ref_venv()), str(script), echo_server, echo_production_server],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=workdir,  # not the repo: our `openenv` package must not shadow the reference
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.compat
def test_openenv_010_mcp_client_lists_calls_and_steps(reference_client_run: dict) -> None:
    out = reference_client_run["simulation"]
    assert out["tools"] == ["echo_message", "echo_with_length"]
    assert out["schema"]["required"] == ["message"]
    assert out["echo"] == "Hello!"
    assert out["length"] == {"message": "Hello!", "length": 6}
    assert "reserved for the orchestrator" in out["reserved"]
    assert out["ready"] == "Echo environment ready!"
    assert out["step"] == ["step", 0.0]


@pytest.mark.compat
def test_openenv_010_mcp_client_in_production_mode(reference_client_run: dict) -> None:
    out = reference_client_run["production"]
    assert out["tools"] == ["echo_message", "echo_with_length"]
    assert out["echo"] == "Hello!"
    assert "reserved for the orchestrator" in out["reserved"]
    assert "production mode" in out["reset_refused"]
