"""Inspect AI runs OpenEnv environments: a session per sample, the env's tools as Inspect tools,
the env's reward as the score, and logs that read back and open in ``inspect view``.

The model is Inspect's mock (``mockllm/model``) answering with scripted outputs. Each output
carries its token usage: without it the mock counts tokens with ``tiktoken``, which downloads
its encoding, and nothing here may use the network.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate
from wordle_env import WordleAction, WordleEnv

from openenv.client import MCPToolClient
from openenv.core.mcp import CallToolAction, CallToolObservation, MCPEnvironment, tool
from openenv.integrations.inspect import OpenEnvEpisode, openenv_agent, openenv_reward
from openenv.server import create_app
from tests.conftest import ROOT, api_app, env_fixtures, free_port, served, stop_process_group

url, env = env_fixtures("wordle_env.server.app:app", WordleEnv)

# Inspect's own retry set-up, not ours: tenacity deprecated an argument Inspect passes.
pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated")

MOCK = "mockllm/model"
EXAMPLE = ROOT / "examples" / "inspect_wordle.py"
WAIT_S = 120.0  # for a subprocess to come up on a loaded machine; never a pass/fail timing
PROMPT = "Find the hidden word. Guess with the step tool."


# -- the mock model and the eval -----------------------------------------------------------


def scripted(output: ModelOutput) -> ModelOutput:
    """A mock answer with its usage given (see the module docstring)."""
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def call(tool_name: str, **arguments: Any) -> ModelOutput:
    return scripted(ModelOutput.for_tool_call(MOCK, tool_name, arguments))


def say(text: str) -> ModelOutput:
    return scripted(ModelOutput.from_content(MOCK, text))


def run_eval(task: Task | str, outputs: Any, log_dir: Path, **kwargs: Any) -> EvalLog:
    """Inspect's ``eval`` with the mock model, in a thread of its own (a session-wide Playwright
    browser keeps an event loop in this one); the logging set-up it changes is put back."""
    model = get_model(MOCK, custom_outputs=outputs)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            run = pool.submit(
                inspect_eval, task, model=model, log_dir=str(log_dir), display="none", **kwargs
            )
            [log] = run.result()
    finally:
        root.handlers[:], root.level = handlers, level
    assert log.status == "success", log.error
    return log


def score_of(sample: EvalSample) -> float:
    return sample.scores["openenv_reward"].value


def episode_of(sample: EvalSample) -> dict[str, Any]:
    """The agent's record of the sample's episode (an OpenEnvEpisode in the sample's store)."""
    prefix = f"{OpenEnvEpisode.__name__}:"
    return {k.removeprefix(prefix): v for k, v in sample.store.items() if k.startswith(prefix)}


def rewards_of(sample: EvalSample) -> list[float]:
    return episode_of(sample)["rewards"]


def tools_offered(sample: EvalSample) -> list[Any]:
    """The tools the model was given on its first turn (Inspect's ModelEvent)."""
    return next(e for e in sample.events if e.event == "model").tools


# -- Wordle: a text game, played through one `step` tool ----------------------------------

WORDLE_GUESSES = ["zzzzz", "slate", "crane"]  # refused (not a word), then two real guesses


@pytest.fixture(scope="module")
def wordle_log(url: str, tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    task = Task(
        dataset=[
            Sample(id="crane", input=PROMPT, metadata={"seed": 7, "options": {"word": "crane"}})
        ],
        solver=openenv_agent(lambda: WordleEnv(base_url=url)),
        scorer=openenv_reward(),
    )
    outputs = [call("step", guess=word) for word in WORDLE_GUESSES]
    return run_eval(task, outputs, tmp_path_factory.mktemp("wordle-logs"))


def test_the_score_is_the_reward_wordle_gave(wordle_log: EvalLog, env: Any) -> None:
    env.reset(seed=7, word="crane")  # the same episode, played by hand on the same server
    by_hand = [env.step(WordleAction(guess=word)).reward for word in WORDLE_GUESSES[1:]]
    [sample] = wordle_log.samples
    assert by_hand == [0.0, 1.0]
    assert rewards_of(sample) == by_hand
    assert score_of(sample) == sum(by_hand) == 1.0
    assert wordle_log.results.scores[0].metrics["mean"].value == 1.0


def test_the_model_plays_through_a_step_tool_made_from_the_action_schema(
    wordle_log: EvalLog,
) -> None:
    [sample] = wordle_log.samples
    [step] = tools_offered(sample)
    assert step.name == "step"
    assert list(step.parameters.properties) == ["guess"]  # metadata is not the model's to fill
    assert step.parameters.required == ["guess"]
    assert step.parameters.properties["guess"].description == "A five-letter English word"
    begins = sample.messages[1].text
    assert begins.startswith("The episode begins:") and "Guess the 5-letter word" in begins


def test_a_refused_guess_reaches_the_model_and_the_game_goes_on(wordle_log: EvalLog) -> None:
    [sample] = wordle_log.samples
    refused, slate, crane = [m for m in sample.messages if m.role == "tool"]
    assert "not in the word list" in refused.error.message
    assert json.loads(slate.text)["feedback"] == ["XXGXG"]
    last = json.loads(crane.text)
    assert (last["won"], last["reward"], last["done"]) == (True, 1.0, True)
    episode = episode_of(sample)
    assert (episode["refused"], episode["steps"], episode["done"]) == (1, 2, True)
    # The episode is over: the model is not asked again.
    assert [m.role for m in sample.messages][-1] == "tool"


def test_a_url_is_enough_the_action_schema_comes_from_the_server(url: str, tmp_path: Path) -> None:
    task = Task(
        dataset=[Sample(input=PROMPT, metadata={"options": {"word": "crane"}})],
        solver=openenv_agent(url),  # a generic client: no action class, so GET /schema
        scorer=openenv_reward(),
    )
    [sample] = run_eval(task, [call("step", guess="crane")], tmp_path).samples
    [step] = tools_offered(sample)
    assert step.name == "step" and list(step.parameters.properties) == ["guess"]
    assert score_of(sample) == 1.0


def test_the_log_reads_back_with_the_score(wordle_log: EvalLog) -> None:
    log = read_eval_log(wordle_log.location)
    [sample] = log.samples
    assert score_of(sample) == 1.0
    assert log.plan.steps[0].solver == "openenv_agent"


def test_the_log_opens_in_inspect_view(wordle_log: EvalLog, tmp_path: Path) -> None:
    log_dir = str(Path(wordle_log.location).parent)
    name = Path(wordle_log.location).name
    with inspect_view(log_dir, tmp_path) as base:
        page = httpx.get(base + "/", timeout=30)
        listing = httpx.get(base + "/api/logs", timeout=30)
        [entry] = listing.json()["files"]
        served_log = httpx.get(
            f"{base}/api/logs/{urllib.parse.quote(entry['name'], safe='')}", timeout=30
        )
    assert page.status_code == 200 and "<title>Inspect View</title>" in page.text
    assert listing.status_code == 200 and entry["name"].endswith(name)
    assert served_log.status_code == 200
    scores = served_log.json()["results"]["scores"][0]
    assert scores["name"] == "openenv_reward" and scores["metrics"]["mean"]["value"] == 1.0


@contextlib.contextmanager
def inspect_view(log_dir: str, home: Path) -> Iterator[str]:
    """``inspect view --log-dir DIR --port P`` in a subprocess until the block ends; its URL
    once its page answers. Its data (the port's pid file) lives under ``home``."""
    port = free_port()
    inspect_cli = shutil.which("inspect", path=str(Path(sys.executable).parent)) or "inspect"
    cmd = [inspect_cli, "view", "--log-dir", log_dir, "--port", str(port)]
    isolated = {"XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache")}
    output = (home / "inspect-view.log").open("wb")
    proc = subprocess.Popen(
        cmd, env={**os.environ, **isolated}, stdout=output, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_page(base + "/", proc, home / "inspect-view.log")
        yield base
    finally:
        stop_process_group(proc)
        output.close()


def wait_for_page(page: str, proc: subprocess.Popen, output: Path) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            said = output.read_text(errors="replace")
            raise RuntimeError(f"inspect view exited with code {proc.returncode}: {said}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(page, timeout=5).status_code == 200:
                return
        time.sleep(0.1)
    raise TimeoutError(f"inspect view did not answer {page} within {WAIT_S}s")


# -- tool (MCP) environments: their tools become Inspect tools -----------------------------


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with served(api_app("echo_env.server.app:app")) as base:
        yield base


def test_the_echo_tools_are_the_models_tools(echo_url: str, tmp_path: Path) -> None:
    task = Task(
        dataset=[Sample(input="Say hello through the echo tool.")],
        # A URL (a generic client; the tools are listed over /ws) and Inspect's own tool loop.
        solver=openenv_agent(echo_url, agent=generate()),
        scorer=openenv_reward(),
    )
    outputs = [call("echo_message", message="Hello, Inspect!"), say("It echoed.")]
    [sample] = run_eval(task, outputs, tmp_path).samples
    offered = {t.name: t for t in tools_offered(sample)}
    assert sorted(offered) == ["echo_message", "echo_with_length"]
    assert offered["echo_message"].description == "Echo the provided message."
    message = offered["echo_message"].parameters.properties["message"]
    assert message.type == "string" and message.description == "The text to send back."
    [echoed] = [m for m in sample.messages if m.role == "tool"]
    assert echoed.text == "Hello, Inspect!"
    assert sample.output.completion == "It echoed."
    assert rewards_of(sample) == [0.0] and score_of(sample) == 0.0  # echo's reward is 0.0


class Vault(MCPEnvironment):
    """A tool env with a reward: find the code (reset option) with ``try_code``; every wrong
    try costs 0.125, the right one earns 1.0 and ends the episode. Instances are kept (the
    server runs in this process) to see each session's env from the test."""

    made: ClassVar[list[Vault]] = []

    def __init__(self) -> None:
        super().__init__()
        self.code, self.seed, self.given, self.closed = -1, None, [], False
        Vault.made.append(self)

    def reset(self, seed: int | None = None, episode_id: str | None = None, code: int = 0):
        super().reset(seed=seed, episode_id=episode_id)
        self.code, self.seed = code, seed
        return CallToolObservation(reward=0.0, metadata={"hint": "a code from 0 to 127"})

    @tool
    def try_code(self, code: int) -> str:
        """Try a code on the vault.

        Args:
            code: A whole number from 0 to 127.
        """
        return "open" if code == self.code else ("higher" if code < self.code else "lower")

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        opened = (observation.result or {}).get("data") == "open"
        observation.reward, observation.done = (1.0 if opened else -0.125), opened
        self.given.append(observation.reward)
        return observation

    def close(self) -> None:
        self.closed = True


def bisecting_player(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    """A mock model that finds the code by bisection, from its own conversation only (so the
    samples, run concurrently, each get the right answers)."""
    low, high = 0, 127
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            tried = message.tool_calls[0].arguments["code"]
        elif message.role == "tool":
            low, high = (tried + 1, high) if message.text == "higher" else (low, tried - 1)
    return call("try_code", code=(low + high) // 2)


def test_a_tool_env_reward_is_the_score_and_every_sample_has_its_own_session(
    tmp_path: Path,
) -> None:
    codes = {"a": (3, 37), "b": (4, 100)}  # sample id: (seed, code)
    dataset = [
        Sample(id=key, input="Open the vault.", metadata={"seed": seed, "options": {"code": code}})
        for key, (seed, code) in codes.items()
    ]
    with served(create_app(Vault, enable_web=False)) as base:
        before = len(Vault.made)
        task = Task(
            dataset=dataset,
            solver=openenv_agent(lambda: MCPToolClient(base_url=base)),
            scorer=openenv_reward(),
        )
        log = run_eval(task, bisecting_player, tmp_path, max_samples=2)
        sessions = Vault.made[before:]
        wait_until(lambda: all(v.closed for v in sessions), "the sessions closed")
    by_seed = {v.seed: v for v in sessions}
    assert sorted(by_seed) == [3, 4]  # one env per sample, reset with the sample's seed
    for sample in log.samples:
        seed, code = codes[sample.id]
        vault = by_seed[seed]
        assert vault.code == code
        assert vault.given[-1] == 1.0 and len(vault.given) > 1  # opened, after wrong tries
        assert rewards_of(sample) == vault.given
        assert score_of(sample) == sum(vault.given)
    assert [t.name for t in tools_offered(log.samples[0])] == ["try_code"]


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not {what} within {WAIT_S}s")
        time.sleep(0.01)


# -- the example -----------------------------------------------------------------------------


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("inspect_wordle_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_runs_as_inspect_eval_loads_it(url: str, tmp_path: Path) -> None:
    player = load_example().scripted_player  # the example's offline stand-in for a model
    spec = f"{EXAMPLE}@wordle"  # as `inspect eval examples/inspect_wordle.py@wordle` names it
    log = run_eval(spec, player, tmp_path, task_args={"base_url": url, "episodes": 2})
    assert log.eval.task.endswith("wordle")
    assert [s.id for s in log.samples] == ["seed-0", "seed-1"]
    for sample in log.samples:
        assert score_of(sample) == sum(rewards_of(sample))
        won = json.loads([m for m in sample.messages if m.role == "tool"][-1].text)["won"]
        assert score_of(sample) == (1.0 if won else 0.0)


@pytest.mark.slow
def test_the_example_script_runs_offline_and_writes_a_log(tmp_path: Path) -> None:
    isolated = {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--episodes", "2", "--log-dir", str(tmp_path / "logs")],
        cwd=tmp_path,
        env={**os.environ, **isolated},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    [location] = list((tmp_path / "logs").glob("*.eval"))
    log = read_eval_log(str(location))
    printed = done.stdout.splitlines()
    for sample in log.samples:
        assert f"{sample.id}: score {score_of(sample)}" in printed
        assert score_of(sample) == sum(rewards_of(sample))
