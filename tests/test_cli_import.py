"""`openenv import`: a Verifiers taskset becomes an env package that validates, serves and plays.

The sources are real Verifiers (>= 0.4, ``verifiers.v1``) tasksets written in the test with
their data inline (no network): Verifiers' reverse-text example (single turn, two weighted
``@vf.reward`` functions and a ``@vf.metric``) and a number-guessing game whose own ``vf.Env``
answers each reply (multi-turn, as the ``textarena`` taskset shipped with Verifiers does).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from openenv.cli.main import main

vf = pytest.importorskip("verifiers.v1", reason="needs verifiers >= 0.4")

REVERSE = '''
"""Reverse a text (Verifiers' reverse-text example, its data inline)."""
import difflib

import verifiers.v1 as vf

ROWS = ["hello world", "openenv", "a man a plan"]


class ReverseData(vf.TaskData):
    answer: str


class ReverseTask(vf.Task[ReverseData, vf.State, vf.TaskConfig]):
    @vf.reward(weight=0.8)
    async def lcs_ratio(self, task, trace) -> float:
        return difflib.SequenceMatcher(None, trace.last_reply, task.answer).ratio()

    @vf.reward(weight=0.2)
    async def exact(self, task, trace) -> float:
        return float(trace.last_reply == task.answer)

    @vf.metric
    async def length(self, trace) -> float:
        return float(len(trace.last_reply))


class ReverseTaskset(vf.Taskset[ReverseTask, vf.TasksetConfig]):
    def load(self):
        for text in ROWS:
            data = ReverseData(
                prompt=f"Reverse this text: {text}",
                system_prompt="Reply with the reversed text only.",
                answer=text[::-1],
            )
            yield ReverseTask(data, self.config.task)


__all__ = ["ReverseTaskset"]
'''

GUESS = '''
"""Guess the number: the env's own run() answers each reply with a hint."""
import verifiers.v1 as vf


class GuessData(vf.TaskData):
    secret: int


class GuessTask(vf.Task[GuessData, vf.State, vf.TaskConfig]):
    @vf.reward(weight=1.0)
    async def solved(self, task, trace) -> float:
        return float(trace.last_reply == str(task.secret))


class GuessEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


class GuessEnv(vf.Env[GuessEnvConfig]):
    async def run(self, task, agents):
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                reply = segment.last_reply
                if reply == str(task.data.secret):
                    break
                hint = "higher" if reply.isdigit() and int(reply) < task.data.secret else "lower"
                segment = await interaction.turn(hint if reply.isdigit() else "a number, please")
        interaction.trace.record_reward("turns_left", 1 - interaction.trace.num_turns / 10, 0.5)


class GuessTaskset(vf.Taskset[GuessTask, vf.TasksetConfig]):
    def load(self):
        for secret in (3, 7):
            yield GuessTask(GuessData(prompt="Guess my number, 1 to 10.", secret=secret), None)


__all__ = ["GuessEnv", "GuessTaskset"]
'''


CALC = '''
"""Arithmetic with a calculator: the task declares a vf.Toolset with one @vf.tool."""
import verifiers.v1 as vf


class Calculator(vf.Toolset):
    @vf.tool
    async def add(self, a: int, b: int) -> int:
        """Add two integers."""
        return a + b


class CalcData(vf.TaskData):
    answer: str


class CalcTask(vf.Task[CalcData, vf.State, vf.TaskConfig]):
    @classmethod
    def toolsets(cls, config):
        return [Calculator(vf.ToolsetConfig())]

    @vf.reward
    async def correct(self, task, trace) -> float:
        return float(trace.last_reply == task.answer)

    @vf.metric
    async def tool_calls(self, trace) -> float:
        return float(len(trace.tool_messages))


class CalcTaskset(vf.Taskset[CalcTask, vf.TasksetConfig]):
    def load(self):
        yield CalcTask(CalcData(prompt="What is 1234 + 4321? Use add.", answer="5555"), None)


__all__ = ["CalcTaskset"]
'''

# The basic environment `orwd init` writes (openreward's template), on the ors-sdk package.
BASIC_ORS = '''
from pydantic import BaseModel

from ors import Environment, JSONObject, TextBlock, ToolOutput, tool


class BasicTaskSpec(BaseModel):
    id: str
    problem: str
    solution: str


class AnswerParams(BaseModel):
    answer: str


train_tasks = [{"id": "train-0", "problem": "What is 2+2?", "solution": "4"}]
test_tasks = [{"id": "test-0", "problem": "What is 2*4?", "solution": "8"}]


class BasicEnvironment(Environment):
    def __init__(self, task_spec: JSONObject = {}, secrets: dict[str, str] = {}):
        super().__init__(task_spec)
        self.config = BasicTaskSpec.model_validate(task_spec)

    @classmethod
    def list_tasks(cls, split: str) -> list[JSONObject]:
        if split == "train":
            return train_tasks
        elif split == "test":
            return test_tasks
        raise ValueError(f"Unknown split: {split}")

    @classmethod
    def list_splits(cls) -> list[str]:
        return ["train", "test"]

    def get_prompt(self) -> str:
        return [TextBlock(type="text", text=self.config.problem)]

    @tool
    async def answer(self, params: AnswerParams) -> ToolOutput:
        """Submit your final answer; this finishes the episode."""
        correct = params.answer == self.config.solution
        return ToolOutput(
            blocks=[TextBlock(type="text", text="Correct!" if correct else "Wrong!")],
            reward=1.0 if correct else 0.0,
            finished=True,
        )
'''


@pytest.fixture(autouse=True)
def _forget_generated_packages() -> Iterator[None]:
    """Each test imports its generated package afresh (validation and the runtime plan import
    it into this process)."""
    modules, path = set(sys.modules), list(sys.path)
    yield
    for name in set(sys.modules) - modules:
        if name.split(".")[0].endswith("_env") or name.startswith("oe_test_"):
            del sys.modules[name]
    sys.path[:] = path


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two taskset modules on sys.path (and on PYTHONPATH for servers started from here)."""
    where = tmp_path / "sources"
    where.mkdir()
    (where / "oe_test_reverse.py").write_text(textwrap.dedent(REVERSE), encoding="utf-8")
    (where / "oe_test_guess.py").write_text(textwrap.dedent(GUESS), encoding="utf-8")
    (where / "oe_test_calc.py").write_text(textwrap.dedent(CALC), encoding="utf-8")
    (where / "oe_test_basic_ors.py").write_text(textwrap.dedent(BASIC_ORS), encoding="utf-8")
    monkeypatch.syspath_prepend(str(where))
    return where


def _import(out: Path, source: str, name: str, *extra: str) -> int:
    return main(["import", source, "--name", name, "--output-dir", str(out), *extra])


def test_import_writes_a_package_that_passes_static_validation(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "envs"
    assert _import(out, "oe_test_reverse", "reverse_text") == 0
    package = out / "reverse_text_env"
    for path in (
        "__init__.py", "models.py", "client.py", "openenv.yaml", "README.md",
        "requirements.txt", "Dockerfile", "validation/runtime.json",
        "server/__init__.py", "server/app.py", "server/environment.py", "server/oracle.py",
        "tests/test_reverse_text.py",
    ):  # fmt: skip
        assert (package / path).is_file(), path
    manifest = (package / "openenv.yaml").read_text()
    assert "validation:" in manifest and "range: [0, 1]" in manifest
    readme = (package / "README.md").read_text()
    assert "`lcs_ratio`: weight 0.8" in readme and "`exact`: weight 0.2" in readme
    assert "verifiers==" in (package / "requirements.txt").read_text()
    assert "rewards: exact x0.2, lcs_ratio x0.8" in capsys.readouterr().out

    assert main(["validate", str(package), "--level", "static"]) == 0
    assert "Verdict: PASS" in capsys.readouterr().out


def test_one_reply_is_scored_by_the_weighted_verifiers_rewards(
    sources: Path, tmp_path: Path
) -> None:
    assert _import(tmp_path, "oe_test_reverse", "reverse_text") == 0
    sys.path.insert(0, str(tmp_path))
    from reverse_text_env.models import ReverseTextAction
    from reverse_text_env.server.environment import ReverseTextEnvironment

    env = ReverseTextEnvironment()
    obs = env.reset(seed=0, task=0)
    assert obs.prompt == "Reverse this text: hello world" and not obs.done
    assert obs.system_prompt == "Reply with the reversed text only."
    obs = env.step(ReverseTextAction(message="dlrow olleh"))
    assert obs.done and obs.reward == pytest.approx(1.0)
    assert obs.scores == {"exact": 1.0, "lcs_ratio": 1.0}
    assert obs.metadata["reward_weights"] == {"exact": 0.2, "lcs_ratio": 0.8}
    assert obs.metrics == {"length": 11.0}

    obs = env.reset(seed=0, task=0)
    obs = env.step(ReverseTextAction(message="hello world"))
    lcs = obs.scores["lcs_ratio"]
    assert obs.scores["exact"] == 0.0 and 0.0 < lcs < 1.0
    assert obs.reward == pytest.approx(0.8 * lcs)
    env.close()


def test_a_multi_turn_env_answers_each_reply_until_it_ends(sources: Path, tmp_path: Path) -> None:
    assert _import(tmp_path, "oe_test_guess", "guess") == 0
    readme = (tmp_path / "guess_env" / "README.md").read_text()
    assert "multi-turn" in readme and "GuessTaskset" in readme
    sys.path.insert(0, str(tmp_path))
    from guess_env.models import GuessAction
    from guess_env.server.environment import GuessEnvironment

    env = GuessEnvironment()
    obs = env.reset(seed=0, task=1)  # the secret is 7
    assert obs.prompt == "Guess my number, 1 to 10."
    obs = env.step(GuessAction(message="five"))
    assert obs.prompt == "a number, please" and not obs.done and obs.reward == 0.0
    obs = env.step(GuessAction(message="5"))
    assert obs.prompt == "higher" and not obs.done
    obs = env.step(GuessAction(message="7"))
    assert obs.done
    assert obs.scores == {"solved": 1.0, "turns_left": pytest.approx(0.7)}
    assert obs.weights == {"solved": 1.0, "turns_left": 0.5}
    assert obs.reward == pytest.approx(1.0 + 0.5 * 0.7)
    roles = [m["role"] for m in obs.messages]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]
    env.close()


def test_a_tasks_tools_are_called_inside_the_open_turn(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from openenv.core import InvalidAction

    assert _import(tmp_path, "oe_test_calc", "calc") == 0
    assert "tools of Calculator: called in-process" in capsys.readouterr().out
    assert "tool=NAME, arguments={...}" in (tmp_path / "calc_env" / "README.md").read_text()
    sys.path.insert(0, str(tmp_path))
    from calc_env.models import CalcAction
    from calc_env.server.environment import CalcEnvironment

    env = CalcEnvironment()
    obs = env.reset(seed=0)
    add = {"name": "add", "description": "Add two integers.", "parameters": ["a", "b"]}
    assert obs.tools == [add]
    obs = env.step(CalcAction(tool="add", arguments={"a": 1234, "b": 4321}))
    assert not obs.done and obs.messages[-1] == {"role": "tool", "content": "5555"}
    obs = env.step(CalcAction(tool="add", arguments={"a": 1}))
    assert obs.messages[-1]["content"].startswith("error:") and not obs.done
    with pytest.raises(InvalidAction, match="unknown tool 'mul'; tools: add"):
        env.step(CalcAction(tool="mul"))
    obs = env.step(CalcAction(message="5555"))
    assert obs.done and obs.reward == 1.0 and obs.metrics == {"tool_calls": 2.0}
    env.close()


def test_the_textarena_taskset_shipped_with_verifiers_plays_hangman(tmp_path: Path) -> None:
    pytest.importorskip("textarena")
    from textarena_env.server.offline import textarena

    textarena()  # NLTK's words from textarena_env's folder; nltk.download never reaches out
    config = '{"game": "Hangman-v0"}'
    assert _import(tmp_path, "textarena", "hangman", "--config", config, "--max-turns", "8") == 0
    environment = (tmp_path / "hangman_env" / "server" / "environment.py").read_text()
    assert "TASKSET: ClassVar[str] = 'textarena'" in environment
    assert "{'game': 'Hangman-v0'}" in environment
    sys.path.insert(0, str(tmp_path))
    from hangman_env.models import HangmanAction
    from hangman_env.server.environment import HangmanEnvironment

    env = HangmanEnvironment()
    obs = env.reset(seed=0, task=0)
    assert "You are playing Hangman" in obs.prompt and "6 tries left" in obs.prompt
    for letter in "qzxjvkwy":  # rare letters: six misses lose the game, else 8 turns end it
        obs = env.step(HangmanAction(message=f"[{letter}]"))
        if obs.done:
            break
        assert "C00" in obs.prompt  # the game's own board comes back as the user turn
    assert obs.done and set(obs.scores) == {"game_reward"}
    assert obs.reward == obs.scores["game_reward"] and obs.weights == {"game_reward": 1.0}
    env.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, server: subprocess.Popen[bytes], deadline_s: float = 180) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if server.poll() is not None:
            raise AssertionError(f"the server exited: {server.stdout.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)  # polling a condition, not a timing assert
    raise AssertionError("the server never answered /health")


def test_the_package_serves_with_uvicorn_and_our_client_plays_it(
    sources: Path, tmp_path: Path
) -> None:
    assert _import(tmp_path, "oe_test_reverse", "reverse_text") == 0
    port = _free_port()
    inherited = os.environ.get("PYTHONPATH")
    path = os.pathsep.join(filter(None, [str(tmp_path), str(sources), inherited]))
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "reverse_text_env.server.app:app", "--port", str(port)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": path},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, server)
        sys.path.insert(0, str(tmp_path))
        from reverse_text_env import ReverseTextAction, ReverseTextEnv

        with ReverseTextEnv(base_url=url).sync() as env:
            result = env.reset(seed=0, task=1)
            assert result.observation.prompt == "Reverse this text: openenv"
            result = env.step(ReverseTextAction(message="vnenepo"))
            assert result.done and result.reward == pytest.approx(1.0)
            assert result.observation.scores == {"exact": 1.0, "lcs_ratio": 1.0}
    finally:
        server.terminate()
        server.wait(timeout=30)


# -- bad input ------------------------------------------------------------------------------


def test_an_unknown_source_is_refused_and_nothing_is_written(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _import(tmp_path, "no_such_taskset_here", "nothing") != 0
    assert "no Verifiers taskset 'no_such_taskset_here'" in capsys.readouterr().out
    assert not (tmp_path / "nothing_env").exists()


def test_a_module_without_a_taskset_is_refused(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _import(tmp_path, "json", "jsonish") != 0
    assert "'json' is not a Verifiers taskset" in capsys.readouterr().out


def test_a_verifiers_0_1_environment_is_refused_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sophistry_bench_sprint")
    assert _import(tmp_path, "sophistry_bench_sprint", "sophistry") != 0
    assert "Verifiers 0.1-0.3 API" in capsys.readouterr().out


def test_a_name_that_clashes_with_an_installed_env_is_refused(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _import(tmp_path, "oe_test_reverse", "grid_world") != 0
    assert "grid_world_env is already an importable package" in capsys.readouterr().out
    assert not (tmp_path / "grid_world_env").exists()


def test_a_non_empty_output_dir_needs_force(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "reverse_text_env"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    assert _import(tmp_path, "oe_test_reverse", "reverse_text") != 0
    assert "is not empty: pass --force" in capsys.readouterr().out
    assert not (target / "openenv.yaml").exists()
    assert _import(tmp_path, "oe_test_reverse", "reverse_text", "--force") == 0
    assert (target / "openenv.yaml").is_file() and (target / "notes.txt").read_text() == "mine"


def test_bad_config_and_bad_names_are_refused(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _import(tmp_path, "oe_test_reverse", "r1", "--config", "[1, 2]") != 0
    assert "--config must be a JSON object" in capsys.readouterr().out
    assert _import(tmp_path, "oe_test_reverse", "r2", "--config", "{nope") != 0
    assert "--config is not JSON" in capsys.readouterr().out
    assert _import(tmp_path, "oe_test_reverse", "r3", "--config", '{"nope": 1}') != 0
    assert "refuses its config" in capsys.readouterr().out
    assert _import(tmp_path, "oe_test_reverse", "9 lives") != 0
    assert "cannot name an environment" in capsys.readouterr().out
    assert not any(tmp_path.glob("r*_env"))


def test_an_ors_environment_becomes_a_tool_env_that_validates_and_plays(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("ors", reason="needs ors-sdk")
    from fastapi.testclient import TestClient

    source = "oe_test_basic_ors:BasicEnvironment"
    assert _import(tmp_path, source, "basic_math", "--type", "ors") == 0
    package = tmp_path / "basic_math_env"
    assert 'declared_tools: ["answer"]' in (package / "openenv.yaml").read_text()
    assert "ors-sdk==" in (package / "requirements.txt").read_text()
    assert main(["validate", str(package), "--level", "static"]) == 0
    assert "Verdict: PASS" in capsys.readouterr().out

    sys.path.insert(0, str(tmp_path))
    from basic_math_env import CallToolAction
    from basic_math_env.server.app import app
    from basic_math_env.server.environment import BasicMathEnvironment

    env = BasicMathEnvironment()
    obs = env.reset(seed=0, split="test")
    assert obs.prompt == "What is 2*4?" and obs.tools == ["answer"] and not obs.done
    obs = env.step(CallToolAction(tool_name="answer", arguments={"wrong": 1}))
    assert obs.error.error_type == "invalid_args" and not obs.done
    obs = env.step(CallToolAction(tool_name="answer", arguments={"answer": "8"}))
    assert obs.output == "Correct!" and obs.reward == 1.0 and obs.done
    env.close()

    with TestClient(app) as client:
        listed = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert [t["name"] for t in listed.json()["result"]["tools"]] == ["answer"]
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "reset", "data": {"seed": 0, "split": "train"}})
            assert ws.receive_json()["data"]["observation"]["prompt"] == "What is 2+2?"
            step = {"type": "call_tool", "tool_name": "answer", "arguments": {"answer": "5"}}
            ws.send_json({"type": "step", "data": step})
            reply = ws.receive_json()["data"]
            assert reply["observation"]["output"] == "Wrong!" and reply["done"]
            assert reply["reward"] == 0.0


def test_an_ors_source_must_name_its_class(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _import(tmp_path, "some_module", "x", "--type", "ors") != 0
    assert "name the ORS Environment class" in capsys.readouterr().out


def test_ors_without_its_sdk_says_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    find = importlib.util.find_spec  # the SDK is installed by the test command: hide it
    hidden = {"ors", "openreward"}
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in hidden else find(name, *a)
    )
    assert _import(tmp_path, "my_ors_env:MyEnv", "ors_thing", "--type", "ors") != 0
    assert "needs the `ors-sdk` package" in capsys.readouterr().out
