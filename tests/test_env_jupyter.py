"""The Jupyter environment: a real kernel per session, sandboxed like coding_env's code.

Cells keep their state, figures come back as images and tables as HTML, a failing or endless
cell leaves the episode usable, the kernel sees no network, no other session and nothing of the
server, and its processes are gone after close; the same over /ws and /mcp.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("jupyter_client")

from jupyter_env import CallToolAction, CellOutput, JupyterEnv, JupyterState, NotebookCell
from jupyter_env.server.app import DEFAULT_MAX_SESSIONS
from jupyter_env.server.environment import JupyterEnvironment
from jupyter_env.server.render import notebook_svg

from openenv.core.errors import ToolCallError
from openenv.sandbox import SandboxLimits
from openenv.testing import check_env
from openenv.web.drawing.svg import sanitize_svg
from tests.servers import api_app, module_app, served

APP = "jupyter_env.server.app:app"


def make_env(timeout_s: float = 20.0) -> JupyterEnvironment:
    return JupyterEnvironment(limits=SandboxLimits(), timeout_s=timeout_s)


@pytest.fixture(scope="module")
def env() -> Iterator[JupyterEnvironment]:
    """One kernel for the module's read-mostly tests (a kernel takes seconds to start)."""
    environment = make_env()
    environment.reset()
    yield environment
    environment.close()


def run(env: JupyterEnvironment, code: str, tool: str = "add_and_execute_code_cell"):
    key = "command" if tool == "execute_shell_command" else "code"
    return env.step(CallToolAction(tool_name=tool, arguments={key: code}))


def text(obs) -> str:
    assert obs.error is None, obs.error
    return obs.result["data"]


def kernel_processes(workdir: str) -> list[int]:
    """Host processes whose command line names the kernel's working directory."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if workdir.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


# -- cells -------------------------------------------------------------------------------------


def test_variables_persist_from_cell_to_cell(env) -> None:
    assert text(run(env, "x = 21 * 2\nx")) == "42"
    assert text(run(env, "print(x + 1)")) == "43"
    assert env.state.cells[-1].execution_count > env.state.cells[-2].execution_count


def test_a_matplotlib_figure_is_an_image_output_drawn_in_the_notebook(env) -> None:
    out = text(run(env, "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"))
    assert out == "[Image output: 1 image(s) generated]"
    cell = env.state.cells[-1]
    assert cell.has_image and cell.images[0].startswith("iVBORw0KGgo")  # a PNG
    svg = sanitize_svg(env.render().markup)
    assert 'href="data:image/png;base64,iVBORw0KGgo' in svg


def test_a_pandas_table_is_kept_as_html_and_drawn_as_a_grid(env) -> None:
    out = text(run(env, "import pandas as pd\npd.DataFrame({'city': ['Lima'], 'pop': [10.1]})"))
    assert "Lima" in out
    assert "<table" in env.state.cells[-1].outputs[-1].html
    svg = sanitize_svg(env.render().markup)
    assert ">city<" in svg and ">Lima<" in svg and "<table" not in svg


def test_a_cell_that_raises_shows_the_traceback_and_the_episode_goes_on(env) -> None:
    obs = run(env, "def f():\n    return 1 / 0\nf()")
    out = text(obs)
    assert out.startswith("ERROR:\nZeroDivisionError") and "return 1 / 0" in out
    assert obs.done is False and env.state.last_cell_success is False
    assert text(run(env, "edit_me = 5", tool="edit_and_execute_current_cell")) == "(no output)"
    assert env.state.cells[-1].code == "edit_me = 5" and env.state.cells[-1].success
    assert text(run(env, "print(edit_me)")) == "5"


def test_shell_commands_run_in_the_sandbox_and_report_their_exit_status(env) -> None:
    assert text(run(env, "echo hi > note.txt && cat note.txt", "execute_shell_command")) == "hi"
    assert text(run(env, "open('note.txt').read()")) == "'hi\\n'"
    assert text(run(env, "exit 3", "execute_shell_command")).endswith("exit status 3")


def test_bad_tool_arguments_are_the_tools_error(env) -> None:
    obs = env.step(CallToolAction(tool_name="add_and_execute_code_cell", arguments={"code": 5}))
    assert obs.error.error_type.value == "invalid_args" and "code" in obs.error.message
    obs = env.step(CallToolAction(tool_name="add_and_execute_code_cell", arguments={}))
    assert obs.error.error_type.value == "invalid_args"
    obs = env.step(CallToolAction(tool_name="run_everything", arguments={}))
    assert obs.error.error_type.value == "tool_not_found"
    assert text(run(env, "1 + 1")) == "2"


def test_the_notebook_state_summarises_the_last_cells(env) -> None:
    run(env, "summary_marker = 'seen'\nsummary_marker")
    obs = env.step(CallToolAction(tool_name="get_notebook_state", arguments={}))
    assert "summary_marker = 'seen'" in text(obs) and ">>> 'seen'" in text(obs)


def test_outputs_are_bounded(env) -> None:
    out = text(run(env, "print('y' * 200_000)"))
    assert len(out) < 40_000 and "more characters of output not shown" in out


def test_the_drawing_of_a_huge_cell_is_bounded() -> None:
    rows = "".join(f"<tr><th>{i}</th>" + "<td>v</td>" * 50 + "</tr>" for i in range(5000))
    cell = NotebookCell(
        cell_id="c",
        cell_type="code",
        code="x = 1\n" * 5000 + "y" * 10_000,
        output="",
        execution_count=1,
        outputs=[
            CellOutput(output_type="execute_result", html=f"<table>{rows}</table>"),
            CellOutput(output_type="stream", name="stdout", text="<script>alert(1)</script>"),
        ],
    )
    svg = notebook_svg([cell] * 50, "kernel")
    assert len(svg) < 150_000 and "<script" not in sanitize_svg(svg)
    assert "45 earlier cell(s)" in svg and "more line(s)" in svg


# -- isolation ------------------------------------------------------------------------------------


def test_the_kernel_cannot_reach_the_network_nor_the_server(env) -> None:
    with served(api_app(APP)) as url:
        port = httpx.URL(url).port
        code = (
            f"import socket\nfor host, port in [('127.0.0.1', {port}), ('1.1.1.1', 80)]:\n"
            "    try:\n        socket.create_connection((host, port), timeout=3)\n"
            "        print('reached', host)\n    except OSError as e:\n"
            "        print('refused', host)"
        )
        assert text(run(env, code)) == "refused 127.0.0.1\nrefused 1.1.1.1"
        assert JupyterEnvironment().state.network_access is False


def test_the_kernel_sees_nothing_of_the_server_process(env, monkeypatch) -> None:
    secret = secrets.token_hex(8)
    monkeypatch.setenv("JUPYTER_TEST_SECRET", secret)
    code = (
        "import os, glob\nfound = []\nfor p in glob.glob('/proc/*/environ'):\n"
        "    try:\n        found.append(open(p, 'rb').read())\n    except OSError:\n        pass\n"
        f"print({secret!r}.encode() in b''.join(found), 'JUPYTER_TEST_SECRET' in os.environ)\n"
        f"try:\n    open('/proc/{os.getpid()}/environ', 'rb').read()\n    print('server: read')\n"
        "except OSError:\n    print('server: unreadable')"
    )
    assert text(run(env, code)) == "False False\nserver: unreadable"


def test_a_session_cannot_read_another_sessions_files() -> None:
    first, second = make_env(), make_env()
    try:
        first.reset()
        second.reset()
        text(run(first, "open('secret.txt', 'w').write('first only')"))
        path = os.path.join(text(run(first, "import os; print(os.getcwd())")), "secret.txt")
        out = text(run(second, f"print(open({path!r}).read())"))
        assert out.startswith("ERROR:\nFileNotFoundError")
        own = text(run(second, "import os; print(os.path.basename(os.getcwd()))"))
        assert text(run(second, "os.listdir('..')")) == repr([own])  # the others are hidden
    finally:
        first.close()
        second.close()


def test_an_endless_cell_is_interrupted_at_the_time_limit_and_state_survives() -> None:
    env = make_env(timeout_s=2.0)
    try:
        env.reset()
        text(run(env, "kept = 'still here'"))
        out = text(run(env, "while True:\n    pass"))
        assert "KeyboardInterrupt" in out and "time limit of 2 s exceeded" in out
        assert text(run(env, "kept")) == "'still here'"
        stubborn = (
            "import time\nwhile True:\n    try:\n        time.sleep(5)\n"
            "    except KeyboardInterrupt:\n        pass"
        )
        out = text(run(env, stubborn))
        assert "the kernel was restarted, variables are gone" in out
        assert text(run(env, "kept")).startswith("ERROR:\nNameError")
    finally:
        env.close()


def test_the_kernel_and_all_its_processes_are_gone_after_close_and_reset() -> None:
    env = make_env()
    env.reset()
    text(run(env, "import subprocess; p = subprocess.Popen(['sleep', '600'])"))
    workdir = text(run(env, "import os; print(os.getcwd())"))
    assert kernel_processes(workdir)  # the kernel (its argv names its connection file)
    env.reset()  # a fresh kernel, in a fresh directory
    assert kernel_processes(workdir) == [] and not os.path.exists(workdir)
    second = text(run(env, "import os; print(os.getcwd())"))
    assert second != workdir and text(run(env, "'p' in dir()")) == "False"
    env.close()
    assert kernel_processes(second) == [] and not os.path.exists(second)
    env.close()  # twice is harmless


# -- the episode ---------------------------------------------------------------------------------


def test_setup_runs_at_reset_and_final_answer_is_scored_by_verify() -> None:
    env = make_env()
    try:
        obs = env.reset(setup=["echo 6 > data.txt"], verify=["test -f answer.txt", "false"])
        assert obs.metadata["status"] == "ready" and obs.done is False
        text(run(env, "open('answer.txt', 'w').write(str(int(open('data.txt').read()) * 7))"))
        obs = env.step(CallToolAction(tool_name="final_answer", arguments={"answer": "42"}))
        assert obs.done is True and obs.reward == 0.5
        assert env.state.submitted_answer == "42"
        assert [r.success for r in env.state.verify_results] == [True, False]
        obs = env.reset(verify=["mkdir -p logs/verifier && echo 0.9 > logs/verifier/reward.txt"])
        obs = env.step(CallToolAction(tool_name="final_answer", arguments={"answer": "x"}))
        assert obs.reward == 0.9
        failed = env.reset(setup=["exit 1"])
        assert failed.done is True and failed.metadata["status"] == "error"
    finally:
        env.close()


def test_jupyter_honours_the_contract() -> None:
    env = make_env()
    try:
        check_env(
            env,
            actions=lambda env, rng: {
                "type": "call_tool",
                "tool_name": "get_notebook_state",
                "arguments": {},
            },
            steps=3,
        )
    finally:
        env.close()


# -- over the wire -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with served(api_app(APP)) as base:
        yield base


def test_the_typed_client_drives_a_notebook_over_ws(url) -> None:
    with JupyterEnv(base_url=url).sync() as client:
        first = client.reset()
        assert first.observation.metadata["status"] == "ready"
        names = [t.name for t in client.list_tools()]
        assert names == [
            "add_and_execute_code_cell",
            "edit_and_execute_current_cell",
            "execute_shell_command",
            "get_notebook_state",
            "final_answer",
        ]
        assert client.call_tool("add_and_execute_code_cell", code="import os; x = 42\nx") == "42"
        step = client.step(
            CallToolAction(tool_name="add_and_execute_code_cell", arguments={"code": "x + 1"})
        )
        assert step.observation.result["data"] == "43" and step.reward == 0.0
        state = client.state()
        assert isinstance(state, JupyterState) and [c.code for c in state.cells][-1] == "x + 1"
        with pytest.raises(ToolCallError, match="code"):
            client.call_tool("add_and_execute_code_cell", source="x")
        assert client.call_tool("add_and_execute_code_cell", code="x") == "42"
        workdir = client.call_tool("add_and_execute_code_cell", code="print(os.getcwd())")
    # the session closes with its WebSocket, and the kernel with it
    deadline = time.monotonic() + 60
    while kernel_processes(workdir) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert kernel_processes(workdir) == [] and not os.path.exists(workdir)


def test_the_server_hosts_a_bounded_number_of_kernels() -> None:
    expected = int(os.environ.get("MAX_CONCURRENT_ENVS") or DEFAULT_MAX_SESSIONS)
    assert DEFAULT_MAX_SESSIONS == 16
    assert module_app(APP).state.openenv.manager.max_sessions == expected


def test_tools_over_http_mcp_share_the_ws_session(url) -> None:
    def rpc(method: str, params: dict) -> dict:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return httpx.post(url + "/mcp", json=body, timeout=120).json()

    session = rpc("openenv/session/create", {})["result"]["session_id"]
    try:
        call = {"name": "add_and_execute_code_cell", "session_id": session}
        rpc("tools/call", {**call, "arguments": {"code": "y = 'over mcp'"}})
        reply = rpc("tools/call", {**call, "arguments": {"code": "y"}})
        assert reply["result"]["content"][0]["text"] == "'over mcp'"
        listed = rpc("tools/list", {"session_id": session})["result"]["tools"]
        assert "final_answer" in [t["name"] for t in listed]
    finally:
        rpc("openenv/session/close", {"session_id": session})
