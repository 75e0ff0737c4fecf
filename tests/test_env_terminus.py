"""The terminus environment: a shell in a sandbox per session through one `terminal` tool.

Over real WebSockets with the typed client (and /mcp for the tool), as an agent would use it:
files and the directory `cd` left persist, tasks are checked in the sandbox, bad arguments are
the tool's error and the episode goes on, limits hold, and a session can reach neither another
session's files nor the server's environment.
"""

from __future__ import annotations

import os
import re
import time

import httpx
import pytest
from terminus_env import CallToolAction, TerminusEnv
from terminus_env.server.environment import TerminusEnvironment

from openenv.sandbox import SandboxLimits
from openenv.testing import check_env, check_task_source
from tests.servers import env_fixtures

url, env = env_fixtures("terminus_env.server.app:app", TerminusEnv)
SECRET = "terminus-test-secret-7f1e"


def text(result) -> str:
    obs = result.observation
    assert obs.error is None, obs.error
    return obs.result["data"]


def real_path(env) -> str:
    """The session's working directory on the host (outputs show it as ~, so read it
    reversed)."""
    return text(env.run("pwd | rev")).strip()[::-1]


def call(**arguments: str) -> CallToolAction:
    return CallToolAction(tool_name="terminal", arguments=arguments)


@pytest.mark.parametrize("task", [None, "find_error"])
def test_terminus_honours_the_contract(task) -> None:
    check_env(TerminusEnvironment(), steps=8, reset_kwargs={"task": task} if task else None)


def test_files_and_the_working_directory_persist_between_commands(env) -> None:
    env.reset()
    assert (
        text(env.run("mkdir -p work/deep && cd work/deep && echo hi > note.txt")) == "(no output)"
    )
    result = env.run("pwd && cat note.txt")
    assert text(result) == "~/work/deep\nhi"
    assert result.observation.metadata["cwd"] == "~/work/deep"
    assert text(env.run("cd .. && ls")) == "deep"
    assert env.state().cwd == "~/work"
    failed = env.run("false")
    assert text(failed) == "[exit code 1]" and failed.observation.metadata["exit_code"] == 1


def test_a_shipped_task_is_scored_by_checking_the_sandbox(env) -> None:
    first = env.reset(task="hello_file")
    assert "hello.txt" in first.observation.metadata["instruction"]
    env.run("echo 'Hello, terminal!' > hello.txt")
    done = env.submit("done")
    assert done.done and done.reward == 1.0
    assert "holds the greeting" in text(done)
    env.reset(task="hello_file")
    env.run("echo 'hello' > hello.txt")
    assert env.submit("done").reward == 0.0


def test_the_log_task_replays_exactly_from_its_seed_and_takes_the_request_id(env) -> None:
    env.reset(seed=11, task="find_error")
    log = text(env.run("md5sum logs/app.log"))
    line = text(env.run("grep ERROR logs/app.log"))
    env.reset(seed=11, task="find_error")
    assert text(env.run("md5sum logs/app.log")) == log
    request = re.search(r"req-[0-9a-f]{6}", line).group(0)
    wrong = env.reset(seed=11, task="find_error") and env.submit("req-000000")
    assert wrong.reward == 0.0 and wrong.done
    env.reset(seed=11, task="find_error")
    assert env.submit(request).reward == 1.0


def test_the_reference_setup_and_verify_commands_give_the_share_that_passed(env) -> None:
    first = env.reset(setup=["echo seeded > data.txt"], verify=["test -f data.txt", "test -f x"])
    assert first.observation.metadata["status"] == "ready"
    assert text(env.run("cat data.txt")) == "seeded"
    assert env.submit("ok").reward == 0.5
    env.reset(setup=["false"])
    assert env.state().setup_results[0].success is False


def test_bad_arguments_are_the_tools_error_and_the_episode_goes_on(env) -> None:
    env.reset()
    empty = env.step(call()).observation
    assert empty.error is not None and empty.error.error_type.value == "invalid_args"
    unknown = env.step(call(cmd="ls")).observation
    assert unknown.error is not None and "cmd" in unknown.error.message
    long = env.step(call(command="x" * 20_000)).observation
    assert long.error is not None and "10000" in long.error.message
    assert text(env.run("echo still here")) == "still here"
    assert env.state().step_count == 4


def test_the_tool_is_listed_and_callable_over_mcp(url) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    tools = httpx.post(url + "/mcp", json=body, timeout=60).json()["result"]["tools"]
    assert [t["name"] for t in tools] == ["terminal"]
    assert set(tools[0]["inputSchema"]["properties"]) == {"command", "final_answer"}
    params = {"name": "terminal", "arguments": {"command": "echo over mcp"}}
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
    assert httpx.post(url + "/mcp", json=body, timeout=60).json()["result"]["data"] == "over mcp"


def test_no_network_and_no_way_to_the_server(env, url) -> None:
    env.reset()
    port = url.rsplit(":", 1)[1]
    reached = env.run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")
    assert "connected" not in text(reached) and reached.observation.metadata["exit_code"] != 0
    assert env.state().network_access is False


def test_a_session_reads_neither_another_session_nor_the_server(url, monkeypatch) -> None:
    monkeypatch.setenv("TERMINUS_SECRET", SECRET)  # in the server's environment (this process)
    with TerminusEnv(base_url=url).sync() as a, TerminusEnv(base_url=url).sync() as b:
        a.reset()
        b.reset()
        a.run(f"echo {SECRET} > secret.txt")
        theirs = real_path(a)
        peek = text(b.run(f"cat {theirs}/secret.txt; ls /tmp; cat /proc/{os.getpid()}/environ"))
        assert SECRET not in peek
        assert "No such file or directory" in peek
        assert SECRET not in text(b.run("env; cat /proc/*/environ 2>/dev/null"))
        assert not os.path.exists(theirs)  # on the other session's own disk, not the host's


def test_the_sandbox_goes_with_its_session(url) -> None:
    with TerminusEnv(base_url=url).sync() as client:
        client.reset()
        home = real_path(client)
        assert sandbox_processes(home)  # its launcher's command line names its directory
    deadline = time.monotonic() + 60
    while sandbox_processes(home) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not sandbox_processes(home)


def sandbox_processes(home: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if home.encode() in f.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def test_limits_hold_and_files_survive_a_killed_command() -> None:
    env = TerminusEnvironment(SandboxLimits(timeout_s=1.0, output_bytes=2000))
    env.reset()
    env.step(call(command="echo kept > before.txt"))
    slow = env.step(call(command="echo started; sleep 30"))
    assert slow.metadata["timed_out"] is True
    assert slow.result["data"] == "started\n[killed: the command ran longer than 1 s]"
    big = env.step(call(command="yes | head -c 100000")).result["data"]
    assert big.endswith("[... 98000 more bytes of output not shown]")
    assert env.step(call(command="cat before.txt")).result["data"] == "kept"
    bomb = env.step(call(command="for i in $(seq 200); do sleep 5 & done; echo forked")).result
    assert "forked" in bomb["data"] or "fork" in bomb["data"]  # the process limit stops it
    assert env.step(call(command="echo alive")).result["data"] == "alive"
    env.close()


def test_an_episode_is_cut_after_max_steps(env) -> None:
    env.reset(max_steps=2)
    assert not env.run("true").done
    last = env.run("true")
    assert last.done and last.observation.metadata["truncated"] is True


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_task_it_names(env) -> None:
    first = env.reset(seed=11, task_source="starter.jsonl", task_index=1)
    assert first.observation.metadata["task"] == "find_error"
    state = env.state()
    assert (state.task, state.task_source, state.task_index) == ("find_error", "starter.jsonl", 1)
    line = text(env.run("grep ERROR logs/app.log"))  # the task's own files
    assert env.submit(re.search(r"req-[0-9a-f]{6}", line).group(0)).reward == 1.0


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task": "rm_rf"}, r"row 0 of bad.jsonl: no task 'rm_rf'; tasks: hello_file"),
    ({"task": "free"}, r"row 0 of bad.jsonl: no task 'free'"),
    ({"task": ["hello_file"]}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"setup": ["echo hi"]}, r"row 0 of bad.jsonl has no column for 'task'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from terminus_env.server.environment import TASK_ROWS, row_task

    from openenv.core.errors import InvalidAction

    check_task_source(
        TerminusEnvironment,
        TASK_ROWS,
        rows=3,
        gives="task",
        replaced={"task": "sort_inbox", "setup": ["true"], "verify": ["true"]},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
    environment = TerminusEnvironment()
    try:
        with pytest.raises(InvalidAction, match=r"gives the task: leave setup, verify out"):
            environment.reset(setup=["true"], verify=["true"], task_source="starter.jsonl")
        # The default task, as the form sends it, goes with a task_source: the row's task plays.
        environment.reset(task="hello_file", task_source="starter.jsonl", task_index=2)
        assert environment.state.task == "sort_inbox"
    finally:
        environment.close()
