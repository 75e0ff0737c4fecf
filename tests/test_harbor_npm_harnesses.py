"""The four npm coding agents as Harbor harnesses, end to end offline: codex, Claude Code,
opencode and gemini-cli (each its pinned npm release, installed by `openenv harbor install NAME`)
in our process sandbox, talking to the capture proxy in their own dialect (OpenAI Responses,
Anthropic Messages, chat completions, Google generateContent), which talks to the shipped
scripted TEST engine on loopback; then the task's verifier in the same sandbox.

The scripted policy says "run this shell command"; the engine answers with the shell tool each
harness offers (``exec_command``, ``Bash``, ``bash``, ``run_shell_command``), its arguments shaped
to that tool's schema. Also covered without any agent: that resolution, each harness's command
(proxy, key, non-interactive flags) and what an uninstalled or mismatched install says.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from harbor_support import MODEL, TRAIN, sandbox_or_skip

from openenv.core.harness.capture import CaptureProxy, Upstream, create_capture_app
from openenv.core.harness.engine import (
    ChatRequest,
    Engine,
    EngineError,
    Generation,
    create_engine_app,
)
from openenv.core.harness.engine.script import (
    ScriptedCall,
    ScriptedPolicy,
    ScriptStep,
    bash_policy,
    shell_call,
)
from openenv.core.harness.harnesses import (
    HARNESSES,
    ClaudeCode,
    Codex,
    GeminiCli,
    HarnessCommand,
    HarnessUnavailable,
    NpmHarness,
    OpenCode,
    get_harness,
    install_harness,
)
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.rollout import RolloutResult, run_rollout
from openenv.core.harness.tasks import HarborTask, load_task, shipped_tasks

AGENT_TIMEOUT_S = 150.0  # a hung agent is stopped here; these take 10-60 s on a loaded machine
# Each harness, the shell tool it offers the model, and what its log shows of the run.
NPM = {
    "codex": ("exec_command", "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    "claude-code": ("Bash", "The scripted test policy has no more steps."),
    "opencode": ("bash", "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    "gemini-cli": ("run_shell_command", "The scripted test policy has no more steps."),
}


class RecordingEngine(Engine):
    """The scripted TEST engine, keeping every generation it served."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.served: list[Generation] = []

    def generate(self, request: ChatRequest) -> Generation:
        gen = super().generate(request)
        self.served.append(gen)
        return gen


def _hello() -> HarborTask:
    return load_task(shipped_tasks() / "hello-file")


def _rollout(engine: Engine, task: HarborTask, harness: NpmHarness) -> RolloutResult:
    with serve_in_thread(create_engine_app(engine)) as engine_url:
        proxy = CaptureProxy(Upstream(f"{engine_url}/v1", model=MODEL), TRAIN)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            result = run_rollout(
                task,
                proxy=proxy,
                proxy_url=proxy_url,
                harness=harness,
                model=MODEL,
                agent_timeout_s=AGENT_TIMEOUT_S,
            )
            assert len(proxy.sessions) == 0  # the session was closed: its key is dead
            return result


@pytest.mark.parametrize("name", list(NPM))
def test_an_npm_harness_solves_hello_file_and_the_trace_holds_the_engines_ids(name: str) -> None:
    sandbox_or_skip()
    harness = get_harness(name)
    assert isinstance(harness, NpmHarness)
    if problem := harness.problem():
        pytest.skip(problem)  # says: run `openenv harbor install NAME`
    task = _hello()
    solve = (task.path / "solution" / "solve.sh").read_text().strip()
    engine = RecordingEngine(script=bash_policy([solve]))
    result = _rollout(engine, task, harness)
    shell_tool, logged = NPM[name]
    assert result.status == "ok", (result.reason, result.log_tail)
    assert result.reward == 1.0, (result.verifier_output, result.log_tail)
    assert result.harness_exit_code == 0
    assert logged in result.log_tail
    assert "\x1b" not in result.log_tail
    # the engine answered with the harness's own shell tool, the command in its own shape
    first = engine.served[0].tool_calls[0]["function"]
    assert first["name"] == shell_tool
    assert solve in json.loads(first["arguments"]).values()
    # solve, submit, then the closing text: every call the agent made is captured, in one root
    assert result.capture is not None and result.capture.rollout_type == "train"
    assert result.capture.n_roots == 1
    assert result.trace is not None and len(result.trace.turns) == len(engine.served) == 3
    for turn, gen in zip(result.trace.turns, engine.served, strict=True):
        assert turn.prompt_token_ids == gen.prompt_ids
        assert turn.completion_token_ids == gen.completion_ids
        assert turn.per_token_logps == [s.logprob for s in gen.steps]
    # the second call carries the first command's result back: the agent ran it
    assert "tool" in json.dumps(result.trace.turns[1].request["messages"][-1])


ROLLOUT_SCRIPT = """
import json, sys
from openenv.core.harness.capture import CaptureLevel, CaptureProxy, Upstream, create_capture_app
from openenv.core.harness.engine import Engine, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.harnesses import get_harness
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.rollout import run_rollout
from openenv.core.harness.tasks import load_task, shipped_tasks

task = load_task(shipped_tasks() / "hello-file")
solve = (task.path / "solution" / "solve.sh").read_text().strip()
level = CaptureLevel(capture_level="tokens", rollout_type="train", logprobs_mode="processed")
with serve_in_thread(create_engine_app(Engine(script=bash_policy([solve])))) as engine:
    proxy = CaptureProxy(Upstream(engine + "/v1", model="openenv/tiny-test-lm"), level)
    with serve_in_thread(create_capture_app(proxy)) as proxy_url:
        result = run_rollout(task, proxy=proxy, proxy_url=proxy_url,
                             harness=get_harness(sys.argv[1]), model="openenv/tiny-test-lm",
                             agent_timeout_s=150.0)
print(json.dumps({"status": result.status, "reward": result.reward, "reason": result.reason}))
"""
_INET = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"')


@pytest.mark.parametrize("name", list(NPM))
def test_an_npm_harness_connects_to_nothing_but_loopback(name: str, tmp_path: Path) -> None:
    """Every connect(2) of the rollout's processes (the agent and all it starts, traced): only
    loopback, where the proxy is; no telemetry, update check, plugin or package download."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (it traces the agent's connections)")
    sandbox_or_skip()
    if problem := get_harness(name).problem():
        pytest.skip(problem)
    trace = tmp_path / "connect.trace"
    argv = [strace, "-f", "-qq", "-e", "trace=connect", "-o", str(trace)]
    ran = subprocess.run(
        [*argv, sys.executable, "-c", ROLLOUT_SCRIPT, name],
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    if ran.returncode != 0 and "ptrace" in ran.stderr:
        pytest.skip(f"strace cannot trace here: {ran.stderr.strip()[-300:]}")
    outcome = json.loads(ran.stdout.strip().splitlines()[-1])
    assert (outcome["status"], outcome["reward"]) == ("ok", 1.0), (outcome, ran.stderr[-2000:])
    addresses = {a or b for a, b in _INET.findall(trace.read_text())}
    assert "127.0.0.1" in addresses  # the trace saw the agent reach the proxy
    assert addresses <= {"127.0.0.1", "::1"}, trace.read_text()[-3000:]


class KeyRecordingCodex(Codex):
    """codex, remembering the session key it was given (to find its processes by it)."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[str] = []

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        self.keys.append(api_key)
        return super().command(instruction, base_url, api_key, model)


@contextmanager
def _silent_endpoint() -> Iterator[str]:
    """An endpoint that takes connections and never answers (a hung model server)."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()


def _processes_with(needle: bytes) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_an_agent_waiting_on_a_hung_model_is_stopped_at_its_timeout() -> None:
    sandbox_or_skip()
    codex = KeyRecordingCodex()
    if problem := codex.problem():
        pytest.skip(problem)
    seen, done = threading.Event(), threading.Event()

    def watch() -> None:  # the agent's processes, found by the key in their environment
        while not done.wait(0.5):
            if codex.keys and _processes_with(f"OPENENV_API_KEY={codex.keys[-1]}".encode()):
                seen.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with _silent_endpoint() as url:
        proxy = CaptureProxy(Upstream(url, model=MODEL), TRAIN)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            result = run_rollout(
                _hello(),
                proxy=proxy,
                proxy_url=proxy_url,
                harness=codex,
                model=MODEL,
                agent_timeout_s=8.0,
            )
    done.set()
    watcher.join()
    assert result.status == "timeout", (result.reason, result.log_tail)
    assert result.reason == "the harness ran past its 8 s"
    assert result.harness_exit_code is None
    assert result.reward == 0.0  # the verifier still ran: no hello.txt
    assert seen.is_set()  # it ran, waiting on the model...
    assert _processes_with(f"OPENENV_API_KEY={codex.keys[-1]}".encode()) == []  # ...and is gone


# The scripted engine's shell steps, against each harness's shell tool as its request shows it.


def _tool(name: str, properties: dict, required: list[str]) -> dict:
    params = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "function": {"name": name, "parameters": params}}


def test_a_shell_step_takes_the_shell_tool_the_request_offers_shaped_to_its_schema() -> None:
    read = _tool("Read", {"file_path": {"type": "string"}}, ["file_path"])
    claude = _tool(
        "Bash",
        {"command": {"type": "string"}, "description": {"type": "string"}},
        ["command"],
    )
    assert shell_call("ls", [read, claude]) == ("Bash", {"command": "ls"})
    codex_exec = _tool("exec_command", {"cmd": {"type": "string"}}, ["cmd"])
    assert shell_call("ls", [codex_exec]) == ("exec_command", {"cmd": "ls"})
    codex_shell = _tool(
        "shell",
        {
            "command": {"type": "array", "items": {"type": "string"}},
            "timeout_ms": {"type": "number"},
            "with_escalated_permissions": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["plain", "pty"]},
            "workdir": {"type": "string", "default": "."},
        },
        ["command", "with_escalated_permissions", "mode", "workdir"],
    )
    assert shell_call("ls -la", [codex_shell]) == (
        "shell",
        {
            "command": ["bash", "-lc", "ls -la"],
            "with_escalated_permissions": False,
            "mode": "plain",
            "workdir": ".",
        },
    )
    gemini = _tool("run_shell_command", {"command": {"type": "string"}}, ["command"])
    assert shell_call("ls", [read, gemini])[0] == "run_shell_command"
    assert shell_call("ls", None) == ("bash", {"command": "ls"})  # none offered: mini's bash
    assert shell_call("ls", [read]) == ("bash", {"command": "ls"})


def test_a_shell_tool_without_a_command_field_is_a_clear_engine_error() -> None:
    odd = _tool("bash", {"line": {"type": "string"}}, ["line"])
    engine = Engine(script=bash_policy(["ls"]))
    request = ChatRequest(messages=[{"role": "user", "content": "go"}], tools=[odd])
    with pytest.raises(EngineError, match=r"'bash' has no command field .*its fields: line"):
        engine.generate(request)


def test_named_tool_steps_are_given_as_written_and_a_call_is_one_kind() -> None:
    step = ScriptStep(tool_calls=[ScriptedCall(name="bash", arguments={"command": "ls"})])
    offered = [_tool("Bash", {"command": {"type": "string"}}, ["command"])]
    assert step.completion_text(offered) == (
        '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'
    )
    policy = ScriptedPolicy.model_validate({"steps": [{"tool_calls": [{"shell": "ls"}]}]})
    assert '"name": "Bash"' in policy.steps[0].completion_text(offered)
    with pytest.raises(ValueError, match="either a tool name or a shell command"):
        ScriptedCall(name="bash", shell="ls")
    with pytest.raises(ValueError, match="either a tool name or a shell command"):
        ScriptedCall()
    with pytest.raises(ValueError, match="a shell call takes no arguments"):
        ScriptedCall(shell="ls", arguments={"timeout": 5})


def test_a_long_agent_prompt_is_scored_and_its_ids_are_the_whole_prompt() -> None:
    engine = Engine(script=bash_policy(["ls"]))
    long_system = "You are a coding agent. " * 2000  # well past the model's 3072-token window
    request = ChatRequest(
        messages=[{"role": "system", "content": long_system}, {"role": "user", "content": "go"}],
        tools=[_tool("Bash", {"command": {"type": "string"}}, ["command"])],
        logprobs=True,
    )
    gen = engine.generate(request)
    assert len(gen.prompt_ids) > 3072
    assert gen.tool_calls[0]["function"]["name"] == "Bash"
    assert all(s.logprob <= 0.0 for s in gen.steps)


# What each harness runs, and what it says when it cannot.

URL, KEY = "http://127.0.0.1:4321/v1", "sess-123"


def _installed_as(harness: NpmHarness, version: str, program: str) -> NpmHarness:
    """A stand-in install under the harness's prefix: its package.json and its bin link."""
    package = harness.prefix / "node_modules" / harness.package
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": version}))
    harness.executable.parent.mkdir(parents=True, exist_ok=True)
    harness.executable.write_text(program)
    return harness


def _fake(kind: type[NpmHarness], tmp_path: Path) -> NpmHarness:
    harness = kind(home=tmp_path)
    return _installed_as(harness, harness.version, "#!/usr/bin/env node\n")


def test_codex_is_a_responses_provider_at_the_proxy_with_the_session_key(tmp_path: Path) -> None:
    cmd = _fake(Codex, tmp_path).command("do it", URL, KEY, MODEL)
    argv = " ".join(cmd.argv)
    assert 'model_providers.openenv.base_url="http://127.0.0.1:4321/v1"' in argv
    assert 'model_providers.openenv.wire_api="responses"' in argv
    assert "--dangerously-bypass-approvals-and-sandbox" in argv and "--strict-config" in argv
    assert cmd.env["OPENENV_API_KEY"] == KEY
    assert cmd.argv[-2:] == ["--", "do it"]  # an instruction starting with "-" stays a prompt
    flag = cmd.argv.index("--disable-wasm-trap-handler")  # a Node script: the host's Node
    assert cmd.argv[flag - 1] == "/usr/bin/node" and cmd.argv[flag + 1].endswith("/codex")


def test_claude_code_gets_the_proxy_root_and_every_model_is_the_one_given(tmp_path: Path) -> None:
    cmd = _fake(ClaudeCode, tmp_path).command("do it", URL, KEY, MODEL)
    assert cmd.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:4321"
    assert cmd.env["ANTHROPIC_API_KEY"] == KEY
    assert cmd.env["ANTHROPIC_SMALL_FAST_MODEL"] == MODEL
    assert cmd.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert {"-p", "--dangerously-skip-permissions"} <= set(cmd.argv)


def test_opencode_has_one_provider_the_proxy(tmp_path: Path) -> None:
    cmd = _fake(OpenCode, tmp_path).command("do it", URL, KEY, MODEL)
    config = json.loads(cmd.env["OPENCODE_CONFIG_CONTENT"])
    assert config["enabled_providers"] == ["openenv"]
    assert config["provider"]["openenv"]["options"] == {"baseURL": URL, "apiKey": KEY}
    assert config["model"] == f"openenv/{MODEL}"
    assert {"run", "--auto"} <= set(cmd.argv)


def test_gemini_cli_keeps_the_model_id_out_of_the_url_path(tmp_path: Path) -> None:
    cmd = _fake(GeminiCli, tmp_path).command("do it", URL, KEY, MODEL)
    assert cmd.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:4321"
    assert cmd.env["GEMINI_API_KEY"] == KEY
    assert cmd.argv[cmd.argv.index("--model") + 1] == "openenv--tiny-test-lm"
    settings = json.loads(cmd.env["OPENENV_GEMINI_SETTINGS"])
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"


def test_an_uninstalled_or_other_version_says_how_to_install(tmp_path: Path) -> None:
    codex = Codex(home=tmp_path)
    assert codex.problem() == (
        f"codex is not installed in {tmp_path / 'codex'}: run `openenv harbor install codex` "
        "(npm's @openai/codex@0.171.0)"
    )
    with pytest.raises(HarnessUnavailable, match="run `openenv harbor install codex`"):
        codex.command("do it", URL, KEY, MODEL)
    _installed_as(codex, "0.1.0", "#!/usr/bin/env node\n")
    assert "codex 0.1.0 is installed" in str(codex.problem())
    assert "this build runs 0.171.0" in str(codex.problem())


def test_every_harness_is_known_and_an_unknown_one_is_refused() -> None:
    assert set(HARNESSES) == {"mini-swe-agent", *NPM}
    with pytest.raises(HarnessUnavailable, match="unknown harness 'aider': this build runs"):
        install_harness("aider")
    with pytest.raises(HarnessUnavailable, match="claude-code, codex, gemini-cli"):
        get_harness("aider")


FAKE_NPM = """#!/bin/sh
# A stand-in npm: records its argv and umask, then installs (or fails, when told to).
printf '%s\\n' "$@" > "$NPM_ARGS"
umask > "$NPM_UMASK"
[ -n "$NPM_FAIL" ] && { echo "npm error code E404 $NPM_FAIL" >&2; exit 1; }
prefix=$3
mkdir -p "$prefix/node_modules/@openai/codex" "$prefix/node_modules/.bin"
echo '{"version": "0.171.0"}' > "$prefix/node_modules/@openai/codex/package.json"
printf '#!/usr/bin/env node\\n' > "$prefix/node_modules/.bin/codex"
"""


def test_install_runs_npm_on_the_pinned_version_into_the_harness_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "npm").write_text(FAKE_NPM)
    (bin_dir / "npm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("NPM_ARGS", str(tmp_path / "args"))
    monkeypatch.setenv("NPM_UMASK", str(tmp_path / "umask"))
    home = tmp_path / "home"
    assert install_harness("codex", home=home) == home / "codex"
    args = (tmp_path / "args").read_text().splitlines()
    assert args[:3] == ["install", "--prefix", str(home / "codex")]
    assert args[-1] == "@openai/codex@0.171.0" and "--save-exact" in args
    assert (tmp_path / "umask").read_text().strip() == "0022"  # the sandbox's user reads it
    assert Codex(home=home).problem() is None
    monkeypatch.setenv("NPM_FAIL", "@openai/codex@0.171.0 is not in this registry")
    failed = r"npm install @openai/codex@0\.171\.0 failed: npm error code E404"
    with pytest.raises(HarnessUnavailable, match=failed):
        install_harness("codex", home=tmp_path / "other")
