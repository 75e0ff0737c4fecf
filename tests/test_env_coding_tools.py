"""coding_tools_env: SETA-style tools over a sandbox per episode, scored by verify commands.

Over real WebSockets with the typed client, as an agent would use it: the documented quick
start, a shipped task played to 1.0 (and replayed with the same seed), the reward file's
override and its refusals, the tools' errors as observations with the session going on, and
the E2B provider seam up to its network boundary (a local HTTP server stands in for the API).
"""

from __future__ import annotations

import http.server
import threading

import pytest
from coding_tools_env import CallToolAction, CodingToolsEnv
from coding_tools_env.server.environment import CodingToolsEnvironment
from coding_tools_env.server.providers import E2BWorkspace, ProviderError, open_workspace

from openenv.sandbox import SandboxLimits
from openenv.testing import check_env, check_task_source
from tests.servers import env_fixtures

url, env = env_fixtures("coding_tools_env.server.app:app", CodingToolsEnv)
CALC = "/home/user/work/calc.py"


def text(result) -> str:
    obs = result.observation
    assert obs.error is None, obs.error
    return obs.result["data"]


def test_coding_tools_honours_the_contract() -> None:
    check_env(CodingToolsEnvironment(), steps=6)


def test_the_documented_quick_start_scores_its_verify_command(env) -> None:
    first = env.reset(
        setup=["mkdir -p /home/user/work"], verify=["test -f /home/user/work/answer.txt"]
    )
    assert first.observation.metadata["status"] == "ready"
    assert [t.name for t in env.list_tools()] == [
        "bash", "read", "write", "edit", "multi_edit", "glob", "grep", "ls", "todo_write",
        "submit_solution",
    ]  # fmt: skip
    written = env.call_tool("write", file_path="/home/user/work/answer.txt", content="done\n")
    assert written == "Wrote 5 bytes to /home/user/work/answer.txt"
    verdict = env.call_tool("submit_solution")
    assert "1/1 commands passed" in verdict and "reward=1" in verdict
    state = env.state()
    assert state.submitted and state.reward == 1.0 and state.pass_rate == 1.0
    assert state.verify_results[0].success


def test_a_shipped_task_played_with_the_tools_gives_the_same_rewards_twice(env) -> None:
    rewards = []
    for _ in range(2):
        first = env.reset(seed=3)
        assert "calc.py" in first.observation.metadata["instruction"]
        steps = [
            env.use("grep", pattern=r"a - b", path="/home/user/work", include="*.py"),
            env.use("read", file_path=CALC, offset=3, limit=1),
            env.use("edit", file_path=CALC, old_string="return a - b", new_string="return a + b"),
            env.use("todo_write", todos=[{"content": "fix add", "status": "completed"}]),
            env.use("bash", command="cd work && python3 -c 'import calc; print(calc.add(2, 3))'"),
            env.submit(),
        ]
        assert text(steps[0]) == "/home/user/work/calc.py:3:     return a - b"
        assert text(steps[1]) == "     3\t    return a - b\n[... 5 more lines: read with offset=4]"
        assert text(steps[4]) == "5" and steps[4].observation.metadata["cwd"] == "/home/user/work"
        done = steps[-1]
        assert done.done and done.reward == 1.0
        assert done.observation.metadata["reward_components"] == {"verify_pass_rate": 1.0}
        rewards.append([s.reward for s in steps])
    assert rewards[0] == rewards[1] == [0.0] * 5 + [1.0]
    assert env.state().todos[0].status == "completed"


def test_submitting_the_untouched_task_scores_nothing(env) -> None:
    env.reset(task="fix_add")
    done = env.submit()
    assert done.reward == 0.0 and "0/2 commands passed" in text(done)


def test_a_verify_command_writing_the_reward_file_overrides_the_pass_rate(env) -> None:
    env.reset(task="rename_setting")
    env.use("bash", command="echo 1 > /home/user/logs/verifier/reward.txt")  # deleted first
    env.use("multi_edit", file_path="/home/user/app/config.py",
            edits=[{"old_string": "DEBUG_MODE", "new_string": "VERBOSE"}])  # fmt: skip
    done = env.submit()
    assert done.reward == pytest.approx(0.3333)
    meta = done.observation.metadata
    assert meta["reward_components"]["reward_file"] == pytest.approx(0.3333)
    assert env.state().reward_override == pytest.approx(0.3333)


@pytest.mark.parametrize(
    ("written", "reason"), [("nan", "not a finite number"), ("lots", "not a number")]
)
def test_a_reward_file_that_is_not_a_finite_number_is_ignored_with_the_reason(
    env, written, reason
) -> None:
    env.reset(
        verify=["true", "false", f"echo {written} > /home/user/logs/verifier/reward.txt"],
    )
    done = env.submit()
    assert done.reward == pytest.approx(0.6667)
    assert reason in env.state().reward_override_ignored
    assert "Reward file ignored" in text(done)


def test_bad_calls_are_observations_and_the_session_goes_on(env) -> None:
    env.reset(task="fix_add")
    cases = [
        ("nosuch", {}, "unknown tool"),
        ("read", {"file_path": "/home/user/missing.py"}, "No such file or directory"),
        ("edit", {"file_path": CALC, "old_string": "zzz", "new_string": "y"}, "not found"),
        ("edit", {"file_path": CALC, "old_string": "return", "new_string": "y"}, "occurs 2"),
        ("grep", {"pattern": "("}, "bad regular expression"),
        ("bash", {"command": "x" * 10_001}, "invalid arguments"),
        ("todo_write", {"todos": [{"content": "a", "status": "someday"}]}, "invalid"),
    ]
    for name, args, message in cases:
        result = env.step(CallToolAction(tool_name=name, arguments=args))
        assert result.observation.error is not None, name
        assert message in result.observation.error.message, (name, result.observation.error)
    slow = env.use("bash", command="sleep 30", timeout=1)
    assert "killed" in text(slow) and slow.observation.metadata["timed_out"]
    assert text(env.use("ls", path="/home/user")) == "/home/user:\nlogs/\nwork/"


def test_the_e2b_provider_needs_a_key_and_reaches_its_api(monkeypatch) -> None:
    monkeypatch.delenv("E2B_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="E2B_API_KEY"):
        open_workspace(SandboxLimits(), "e2b")
    seen: list[tuple[str, str | None]] = []

    class FakeApi(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append((self.path, self.headers.get("X-API-KEY")))
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"code": 401, "message": "Invalid API key"}')

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("E2B_API_KEY", "e2b_test_key")
        monkeypatch.setenv("E2B_API_URL", f"http://127.0.0.1:{server.server_port}")
        with pytest.raises(ProviderError, match="could not create an E2B sandbox"):
            open_workspace(SandboxLimits(), "e2b")
    finally:
        server.shutdown()
    assert seen and seen[0][0].endswith("/sandboxes") and seen[0][1] == "e2b_test_key"


class _FakeCommands:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def run(self, line: str, timeout: float, envs: dict | None = None):
        self.lines.append(line)

        class Done:
            stdout, stderr, exit_code = "hi\n\n__oe_cwd__/home/user/src", "", 0

        return Done()


def test_the_e2b_workspace_runs_bash_in_the_cwd_and_reads_where_it_ended() -> None:
    sandbox = type("FakeSandbox", (), {"commands": _FakeCommands()})()
    workspace = E2BWorkspace(30.0, sandbox=sandbox)
    out = workspace.bash("cd src && echo hi", "/home/user", 5)
    assert (out.output, out.cwd, out.exit_code) == ("hi", "/home/user/src", 0)
    assert sandbox.commands.lines[0].startswith("cd /home/user ")


TASK_FILE = "coding_tasks.jsonl"  # shipped in coding_tools_env/tasks/
SOLUTIONS = [  # one bash command that solves each row of the shipped task file
    "printf '%s\\n' 'def fizz(n):' \"    return 'Fizz' * (n % 3 == 0) + 'Buzz' * (n % 5 == 0)"
    ' or str(n)" > work/fizz.py',
    "sed -i 's/return text\\[::-1\\]/return \" \".join(reversed(text.split()))/' work/text.py",
    "grep -c ERROR data/log.txt > work/errors.txt",
]


def test_each_row_of_a_task_file_is_set_up_and_verified(env) -> None:
    for index, solution in enumerate(SOLUTIONS):
        first = env.reset(task_source=TASK_FILE, task_index=index)
        meta = first.observation.metadata
        assert meta["status"] == "ready" and meta["task"] == f"{TASK_FILE}#{index}"
        assert meta["instruction"] and meta["verify_commands"]
        assert env.submit().reward == 0.0, index  # untouched: the verify commands fail
        env.reset(task_source=TASK_FILE, task_index=index)
        ran = env.use("bash", command=solution)
        assert ran.observation.error is None, ran.observation.error
        done = env.submit()
        assert done.done and done.reward == 1.0, (index, text(done))


def test_seeds_pick_rows_and_a_shipped_task_still_plays_after_a_task_file(env) -> None:
    def task(seed: int) -> str:
        return env.reset(seed=seed, task_source=TASK_FILE).observation.metadata["task"]

    assert len({task(s) for s in range(8)}) > 1
    assert env.reset(task="answer_file").observation.metadata["task"] == "answer_file"


def played_row(env, obs) -> tuple:
    """The file and row a reset plays: its task is named ``FILE#ROW``."""
    source, _, row = obs.metadata["task"].rpartition("#")
    return source, int(row)


def test_the_shipped_task_file_keeps_the_task_source_contract() -> None:
    from coding_tools_env.server.environment import TASK_ROWS, row_task

    check_task_source(
        CodingToolsEnvironment,
        TASK_ROWS,
        rows=len(SOLUTIONS),
        gives="task",
        replaced={"task": "fix_add", "verify": ["true"]},
        played=played_row,
        read=row_task,
    )


def test_a_row_is_held_to_the_bounds_of_the_reset_options(tmp_path, monkeypatch) -> None:
    import json
    import random

    from coding_tools_env.server.environment import TASK_ROWS, row_task

    from openenv.core.task_source import TASK_DIR_ENV, TaskSourceError

    monkeypatch.setenv(TASK_DIR_ENV, str(tmp_path))
    rows = [
        {"instruction": "one command as text", "verify": "true"},
        {"instruction": "too many", "setup": ["true"] * 11},
        {"prompt": "x" * 4001},
    ]
    (tmp_path / "mine.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def row(index: int):
        return row_task(TASK_ROWS.pick("mine.jsonl", index, random.Random(0)))

    assert row(0) == ("one command as text", [], ["true"])
    with pytest.raises(TaskSourceError, match=r"row 1 of mine.jsonl: List should have at most 10"):
        row(1)
    with pytest.raises(TaskSourceError, match=r"row 2 of mine.jsonl: String should have at most"):
        row(2)
