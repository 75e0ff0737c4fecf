"""Harbor rollouts end to end, offline: mini-swe-agent (the real harness, in its virtualenv) in
our process sandbox, talking to the capture proxy, which talks to the shipped scripted TEST
engine on loopback; then the task's verifier in the same sandbox.

Covered: reward 1 on a solved task with the trace's token ids equal to the engine's; reward 0
when the policy does nothing useful; a hanging harness stopped at its timeout with every process
of its sandbox gone; a crashed engine failing the rollout with the reason; the CLI's output and
its clear error for an unknown task path.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
from harbor_support import MODEL, TRAIN, mini_swe_agent, sandbox_or_skip

from openenv.cli.main import main
from openenv.core.harness.capture import CaptureProxy, Upstream, create_capture_app
from openenv.core.harness.engine import ChatRequest, Engine, Generation, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.harnesses import (
    Harness,
    HarnessCommand,
    MiniSweAgent,
    get_harness,
)
from openenv.core.harness.loopback import free_port, serve_in_thread
from openenv.core.harness.rollout import RolloutResult, run_rollout
from openenv.core.harness.sandboxes import plain
from openenv.core.harness.tasks import HarborTask, load_task, shipped_tasks
from openenv.sandbox.isolation import sandbox_python


@pytest.fixture(scope="module")
def harness() -> MiniSweAgent:
    return mini_swe_agent()


class RecordingEngine(Engine):
    """The scripted TEST engine, keeping every generation it served."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.served: list[Generation] = []

    def generate(self, request: ChatRequest) -> Generation:
        gen = super().generate(request)
        self.served.append(gen)
        return gen


def task(name: str) -> HarborTask:
    return load_task(shipped_tasks() / name)


def solve_policy(t: HarborTask) -> list[str]:
    return [(t.path / "solution" / "solve.sh").read_text().strip()]


def rollout(
    engine: Engine, t: HarborTask, harness: Harness, agent_timeout_s: float | None = None
) -> RolloutResult:
    with serve_in_thread(create_engine_app(engine)) as engine_url:
        proxy = CaptureProxy(Upstream(f"{engine_url}/v1", model=MODEL), TRAIN)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            result = run_rollout(
                t,
                proxy=proxy,
                proxy_url=proxy_url,
                harness=harness,
                model=MODEL,
                agent_timeout_s=agent_timeout_s,
            )
            assert len(proxy.sessions) == 0  # the session was closed: its key is dead
            return result


def test_mini_swe_agent_solves_a_shipped_task_and_the_trace_holds_the_engines_ids(
    harness: MiniSweAgent,
) -> None:
    t = task("fix-add")
    engine = RecordingEngine(script=bash_policy(solve_policy(t)))
    result = rollout(engine, t, harness)
    assert result.status == "ok", (result.reason, result.log_tail)
    assert result.reward == 1.0
    assert result.harness_exit_code == 0
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in result.log_tail  # mini-swe-agent's own log
    assert "\x1b" not in result.log_tail  # its colour codes are dropped
    assert result.capture is not None and result.capture.rollout_type == "train"
    assert result.trace is not None and len(result.trace.turns) == len(engine.served) == 2
    for turn, gen in zip(result.trace.turns, engine.served, strict=True):
        assert turn.prompt_token_ids == gen.prompt_ids
        assert turn.completion_token_ids == gen.completion_ids
        assert turn.per_token_logps == [s.logprob for s in gen.steps]
    assert set(result.timings) == {"setup_s", "harness_s", "verifier_s", "total_s"}
    # the second call's prompt carries the first call's tool result: mini-swe-agent ran it
    assert "return a + b" in json.dumps(result.trace.turns[1].request) or any(
        m.get("role") == "tool" for m in result.trace.turns[1].request["messages"]
    )


def test_a_policy_that_does_nothing_useful_gets_reward_0(harness: MiniSweAgent) -> None:
    engine = RecordingEngine(script=bash_policy(["ls -la"]))
    result = rollout(engine, task("hello-file"), harness)
    assert result.status == "ok", (result.reason, result.log_tail)
    assert result.reward == 0.0
    assert "hello.txt is missing or wrong" in result.verifier_output
    assert result.trace is not None and len(result.trace.turns) == 2


class HangingHarness(Harness):
    """A TEST harness that never ends (a process and a child of it, both asleep)."""

    name = "test-hanging-harness"

    def __init__(self) -> None:
        self.marker = f"600.{uuid.uuid4().int % 10**12}"  # a sleep's length, unique to this run

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        code = f"import subprocess, time; subprocess.Popen(['sleep', '{self.marker}']); "
        code += f"time.sleep({self.marker})"
        return HarnessCommand([sandbox_python(), "-c", code])


def _running_with(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def test_a_hanging_harness_is_stopped_at_its_timeout_and_its_sandbox_cleaned() -> None:
    sandbox_or_skip()
    hang = HangingHarness()
    engine = RecordingEngine(script=bash_policy([]))
    result = rollout(engine, task("hello-file"), hang, agent_timeout_s=2.0)
    assert result.status == "timeout"
    assert result.reason == "the harness ran past its 2 s"
    assert result.harness_exit_code is None
    assert result.reward == 0.0  # the verifier still ran, in the same sandbox
    assert _running_with(hang.marker) == []  # the harness and its child are gone
    assert result.capture is not None and result.capture.nodes == []


class QuietHarness(Harness):
    """A TEST harness that does nothing and ends at once."""

    name = "test-quiet-harness"

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        return HarnessCommand(["/bin/true"])


def test_a_task_that_breaks_mid_rollout_fails_it_with_the_reason(tmp_path: Path) -> None:
    sandbox_or_skip()
    copy = tmp_path / "hello-file"
    shutil.copytree(shipped_tasks() / "hello-file", copy)
    (copy / "tests" / "host-file").symlink_to("/etc/hostname")  # refused when the tests are read
    result = rollout(RecordingEngine(script=bash_policy([])), load_task(copy), QuietHarness())
    assert result.status == "error"
    assert "symlinks are not allowed in a task" in result.reason
    assert result.harness_exit_code == 0 and result.reward is None


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/models", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False


def test_a_crashed_engine_fails_the_rollout_with_the_reason(
    harness: MiniSweAgent, tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    script.write_text(bash_policy(["ls"]).model_dump_json())
    port = free_port()
    serve = [sys.executable, "-m", "openenv.core.harness.engine", "--script", str(script)]
    engine = subprocess.Popen([*serve, "--port", str(port)], start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while not _answers(url):  # the model is built first
            assert engine.poll() is None and time.monotonic() < deadline, "the engine did not start"
            time.sleep(0.2)
        os.killpg(engine.pid, signal.SIGKILL)  # the engine crashes before the first call
        engine.wait()

        def check() -> str | None:
            try:
                httpx.get(f"{url}/models", timeout=2.0)
            except httpx.HTTPError as exc:
                return f"{url} does not answer ({type(exc).__name__})"
            return None

        proxy = CaptureProxy(Upstream(url, model=MODEL), TRAIN)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            result = run_rollout(
                task("hello-file"),
                proxy=proxy,
                proxy_url=proxy_url,
                harness=harness,
                model=MODEL,
                agent_timeout_s=300.0,
                engine_check=check,
            )
    finally:
        if engine.poll() is None:
            os.killpg(engine.pid, signal.SIGKILL)
            engine.wait()
    assert result.status == "engine_error"
    assert result.reason.startswith("the model engine is down: ")
    assert url in result.reason
    assert result.reward is None


def test_the_cli_prints_reward_and_trace_summary(
    harness: MiniSweAgent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rollout.json"
    code = main(["harbor", "rollout", "--task", "hello-file", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "shipped TEST engine" in text and "[TRAIN]" in text
    assert "[mini-swe-agent / process] task hello-file ..." in text
    assert "reward=1.00  turns=2  roots=1" in text and "capture=train" in text
    saved = json.loads(out.read_text())
    assert saved["status"] == "ok" and saved["reward"] == 1.0
    assert len(saved["trace"]["turns"]) == 2


def test_the_cli_prints_the_whole_result_as_json(
    harness: MiniSweAgent, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["harbor", "rollout", "--task", "fix-add", "--policy", "idle", "--json"])
    printed = json.loads(capsys.readouterr().out)  # nothing but the JSON on stdout
    assert code == 0
    assert (printed["task"], printed["status"], printed["reward"]) == ("fix-add", "ok", 0.0)
    assert printed["capture"]["rollout_type"] == "train"
    assert len(printed["trace"]["turns"]) == len(printed["capture"]["nodes"]) == 2


def test_the_cli_says_what_is_wrong_with_an_unknown_task(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["harbor", "rollout", "--task", str(tmp_path / "nope")]) == 1
    assert f"task: {tmp_path / 'nope'}: no such task directory" in capsys.readouterr().out
    assert main(["harbor", "rollout", "--dataset", str(shipped_tasks()), "--task-index", "9"]) == 1
    assert "--task-index 9" in capsys.readouterr().out
    assert main(["harbor", "rollout", "--task", "hello-file", "--harness", "nobody"]) == 1
    assert "unknown harness 'nobody'" in capsys.readouterr().out


def test_what_a_harness_prints_is_shown_without_escape_sequences() -> None:
    assert plain("\x1b[1;31mProvider List\x1b[0m\n\tok\x07\x1b]0;title\x07") == (
        "Provider List\n\tok??]0;title?"
    )


def test_an_unknown_harness_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="this build runs claude-code, codex, gemini-cli, mini-swe"):
        get_harness("aider")
