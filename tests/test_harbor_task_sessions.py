"""Harbor tasks driven by the trainer's own loop (white box): ``HarborTaskSessionFactory``
sessions on a loopback Harbor server, run by ``MCPHarnessAdapter`` with a SCRIPTED model step
(named as such: it replays the task's solution as bash tool calls, where a trainer samples).

The session's one tool is ``bash`` in the task's sandbox (files kept between commands); the
task's verifier gives the reward; a bad command or tool is the model's error, not a crash; the
server holds a bounded number of task sandboxes and frees one when its session leaves; TRL's
harness worker builds the factory without a sampling policy in ``harness_adapter`` mode.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from harbor_support import sandbox_or_skip
from servers import served

from openenv.core.errors import ToolCallError
from openenv.core.harness import HarnessRunLimits, MCPHarnessAdapter, ModelStepResult, ToolResult
from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.core.harness.tool_loop import MAX_TOOL_TEXT, tool_text
from openenv.core.llm_client import LLMResponse, ToolCall
from openenv.harbor import Endpoints, HarborService, ServiceError
from openenv.harbor.app import create_harbor_app
from openenv.harbor.workspace import GRACE_S, MAX_COMMAND_CHARS, WorkspaceError

try:
    from harbor_env import HarborTaskSessionFactory
except ModuleNotFoundError:  # pragma: no cover - a checkout without the env packages installed
    pytest.skip("harbor_env is not importable", allow_module_level=True)

SPLIT = "shipped"
TASKS = load_tasks(shipped_tasks())
HELLO = next(i for i, t in enumerate(TASKS) if t.name == "hello-file")
FIX = next(i for i, t in enumerate(TASKS) if t.name == "fix-add")


class ScriptedStep:
    """A SCRIPTED model step (not a model): each turn replays the next command of a list as a
    bash tool call, then answers; its "ids" count turns so the loop's bookkeeping shows."""

    def __init__(self, commands: list[str]) -> None:
        self.commands, self.seen = list(commands), []

    def __call__(self, messages, tools, sampling) -> ModelStepResult:
        self.seen.append((list(messages), [t.name for t in tools], dict(sampling)))
        turn = len(self.seen)
        if self.commands:
            call = ToolCall(id=f"c{turn}", name="bash", args={"command": self.commands.pop(0)})
            reply = LLMResponse("", [call])
        else:
            reply = LLMResponse("Done.", [])
        return ModelStepResult(reply, [turn], [100 + turn], [-0.5])


def solution(index: int) -> list[str]:
    text = (TASKS[index].path / "solution" / "solve.sh").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, HarborService]]:
    sandbox_or_skip()
    service = HarborService({SPLIT: TASKS}, Endpoints(), max_workspaces=1)
    try:
        with served(create_harbor_app(service, enable_web=False)) as url:
            yield url, service
    finally:
        service.close()


@pytest.fixture
def factory(server: tuple[str, HarborService]) -> Iterator[HarborTaskSessionFactory]:
    made = HarborTaskSessionFactory(server[0])
    yield made
    made.close()


def freed(service: HarborService) -> None:
    """Wait until the server has a task sandbox to give (a left session's closes when the
    server hears it leave)."""
    waited = threading.Event()
    for _ in range(1200):
        if service.workspaces.free():
            return
        waited.wait(0.05)
    raise AssertionError("the server never freed the task sandbox")


@pytest.mark.parametrize("index", [HELLO, FIX])
def test_the_trainers_loop_solves_a_task_with_bash_and_the_verifier_rewards_it(
    server: tuple[str, HarborService], factory: HarborTaskSessionFactory, index: int
) -> None:
    freed(server[1])
    session = factory.create(None, seed=index)  # the seed draws the task
    try:
        assert [t.name for t in session.list_tools()] == ["bash"]
        assert session.initial_messages()[0]["content"] == TASKS[index].instruction
        step = ScriptedStep(solution(index))
        limits = HarnessRunLimits(max_turns=10, sampling={"temperature": 0.7})
        result = MCPHarnessAdapter().run_white_box(step, session, limits)
        verdict = session.verify(result.messages)
    finally:
        session.close()
    assert verdict.env_reward == 1.0, verdict.artifacts
    assert result.done and result.messages[-1] == {"role": "assistant", "content": "Done."}
    assert all(e.result.data["exit_code"] == 0 for e in result.tool_trace)
    turns = len(step.seen)  # every turn's ids in order: what the trainer trains on
    assert result.completion_ids == [100 + n for n in range(1, turns + 1)]
    assert step.seen[0][1] == ["bash"] and step.seen[0][2] == {"temperature": 0.7}
    tool_message = result.messages[2]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "c1"
    assert session.verify([]).env_reward == 1.0  # asked again: the same answer


def test_files_persist_between_commands_and_bad_calls_are_the_models_errors(
    server: tuple[str, HarborService], factory: HarborTaskSessionFactory
) -> None:
    freed(server[1])
    session = factory.create(HELLO)
    try:
        assert session.call_tool("bash", {"command": "echo kept > note.txt"}).error is None
        read = session.call_tool("bash", {"command": "cat note.txt; exit 3"})
        assert read.data["exit_code"] == 3 and "kept" in read.data["output"]
        slow = session.call_tool("bash", {"command": "sleep 30", "timeout_sec": 1})
        assert slow.data["timed_out"] is True and slow.data["exit_code"] is None
        huge = session.call_tool("bash", {"command": "x" * (MAX_COMMAND_CHARS + 1)})
        assert huge.error and "bash" in huge.error
        assert "no tool 'rm'" in (session.call_tool("rm", {}).error or "")
        port = urlsplit(server[0]).port  # this server, on the host's loopback: out of reach
        reach = f"import socket; socket.create_connection(('127.0.0.1', {port}), 5)"
        net = session.call_tool("bash", {"command": f'python3 -c "{reach}"'})
        assert net.data["exit_code"] != 0 and "Error" in net.data["output"]  # no network
        verdict = session.verify([])
        assert verdict.env_reward == 0.0  # hello.txt was never written
        with pytest.raises(ToolCallError, match="no task is open"):
            session._call("bash", command="ls")  # verified: the sandbox is closed
    finally:
        session.close()


def test_the_server_bounds_task_sandboxes_and_frees_one_when_its_session_leaves(
    server: tuple[str, HarborService], factory: HarborTaskSessionFactory
) -> None:
    _, service = server
    freed(service)
    first = factory.create(HELLO)
    try:
        with pytest.raises(ToolCallError, match="1 task workspaces are open"):
            factory.create(HELLO)
    finally:
        first.close()  # leaves without verifying: the server closes its sandbox
    freed(service)
    second = factory.create(HELLO)
    second.close()


def test_tool_text_is_what_the_model_reads_and_bounded() -> None:
    assert tool_text(ToolResult(error="boom")) == "error: boom"
    assert tool_text(ToolResult(data={"exit_code": 0})) == '{"exit_code": 0}'
    long = tool_text(ToolResult(data="x" * (MAX_TOOL_TEXT + 10)))
    assert long.endswith("(10 more characters)") and len(long) < MAX_TOOL_TEXT + 40
    with pytest.raises(NotImplementedError, match="run_white_box"):
        MCPHarnessAdapter().run_black_box(None)  # type: ignore[arg-type]


@pytest.mark.skipif(
    importlib.util.find_spec("trl.experimental.async_grpo.openenv_harness") is None,
    reason="the installed TRL has no async GRPO harness worker",
)
def test_trls_worker_builds_the_factory_without_a_policy_in_adapter_mode(
    server: tuple[str, HarborService],
) -> None:
    """In ``harness_adapter`` mode TRL samples itself: it calls the factory with no argument."""
    from test_harbor_trl_async import trl_loop

    made: list[Any] = []

    def factory(*args: Any, **kwargs: Any) -> HarborTaskSessionFactory:
        made.append(kwargs)
        return HarborTaskSessionFactory(*args, **kwargs)

    with contextlib.ExitStack() as stack:
        loop = stack.enter_context(
            trl_loop(
                server[0],
                session_factory=functools.partial(factory, server[0]),
                harness_adapter=MCPHarnessAdapter(),
            )
        )
        assert made == [{}] and isinstance(loop._factory, HarborTaskSessionFactory)


def test_a_workspace_left_past_its_time_is_closed_to_make_room() -> None:
    sandbox_or_skip()
    service = HarborService({SPLIT: TASKS}, Endpoints(), max_workspaces=1)
    try:
        left = service.open_workspace(SPLIT, HELLO)
        with pytest.raises(ServiceError, match="1 task workspaces are open"):
            service.open_workspace(SPLIT, HELLO)  # still within its time: kept
        left.deadline = time.monotonic() - GRACE_S - 1  # its owner went quiet
        taken = service.open_workspace(SPLIT, HELLO)
        assert left.closed and not taken.closed
        with pytest.raises(WorkspaceError, match="closed"):
            left.bash("ls")
    finally:
        service.close()  # closes the open one too
    assert taken.closed
