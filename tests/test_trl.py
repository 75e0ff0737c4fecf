"""TRL's GRPOTrainer trains against our servers, and the reward it logs is the server's.

Each test runs an example of ``examples/`` as a user would (``python examples/trl_*.py``), a few
optimizer steps on CPU with the tiny model the example builds (no download: the Hub is off).
The servers are ours, served in this process, with an environment that records every episode
it plays (which session, the rewards it gave), so the trainer's log can be checked against
what the server did.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from echo_env.server.environment import EchoEnvironment
from wordle_env.models import WordleAction, WordleObservation, WordleState
from wordle_env.server.environment import WordleEnvironment

from openenv.core.mcp import CallToolAction, CallToolObservation
from openenv.server import create_app
from tests.conftest import ROOT, served

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("trl") is None,
        reason="trl is not installed (pip install torch==2.13.0 -e '.[trl]')",
    ),
]

EXAMPLES = ROOT / "examples"
STEPS = 2
BATCH = 8  # the examples' default: 4 generations for each of 2 prompts per optimizer step


def recording(env_cls: type) -> type:
    """``env_cls`` that records, in reset order, each episode: its session and its rewards."""
    sessions = itertools.count()

    class Recording(env_cls):  # type: ignore[misc, valid-type]
        episodes: list[tuple[int, list[float]]] = []

        def __init__(self) -> None:
            super().__init__()
            self.session = next(sessions)

        def reset(self, *args: Any, **kwargs: Any) -> Any:
            obs = super().reset(*args, **kwargs)
            self.rewards: list[float] = []
            self.episodes.append((self.session, self.rewards))
            return obs

        def step(self, action: Any) -> Any:
            obs = super().step(action)
            self.rewards.append(obs.reward)
            return obs

    return Recording


class ScoredEcho(EchoEnvironment):
    """Echo that scores its calls: 0.01 per character echoed (a tool env owning its reward)."""

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        observation = super().score_tool_call(action, observation)
        observation.reward = 0.01 * len(str(action.arguments.get("message", "")))
        return observation


def run_example(script: str, out: Path, *args: str) -> dict[str, Any]:
    """Run ``examples/<script>`` with the Hub off; return the summary it prints last."""
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRL_EXPERIMENTAL_SILENCE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    cmd = [sys.executable, str(EXAMPLES / script), "--output-dir", str(out), *args]
    proc = subprocess.run(cmd, cwd=out, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def per_step_returns(episodes: list[tuple[int, list[float]]]) -> list[float]:
    """The mean episode return of each optimizer step (TRL resets a batch's envs in order)."""
    returns = [sum(rewards) for _, rewards in episodes]
    return [sum(returns[i : i + BATCH]) / BATCH for i in range(0, len(returns), BATCH)]


def check_run(summary: dict[str, Any], episodes: list[tuple[int, list[float]]]) -> None:
    assert summary["optimizer_steps"] == STEPS
    assert len(episodes) == STEPS * BATCH  # one episode per rollout
    # One session per concurrent rollout, reused by every batch: not a WebSocket per episode.
    assert len({session for session, _ in episodes}) == BATCH
    assert summary["sessions"] == BATCH
    # The model's tool calls reached the server, one step each.
    steps = sum(len(rewards) for _, rewards in episodes)
    assert steps > 0
    assert summary["env_steps"] == steps
    # The reward the trainer logged at each step is what the server gave that step's episodes.
    assert summary["logged_rewards"] == pytest.approx(per_step_returns(episodes), abs=1e-6)


def test_grpo_plays_wordle_and_logs_the_servers_rewards(tmp_path: Path) -> None:
    env_cls = recording(WordleEnvironment)
    app = create_app(
        env_cls, WordleAction, WordleObservation, state_cls=WordleState, enable_web=False
    )
    with served(app) as url:
        summary = run_example("trl_wordle.py", tmp_path, "--base-url", url, f"--max-steps={STEPS}")
    check_run(summary, env_cls.episodes)
    assert (tmp_path / "final" / "model.safetensors").is_file()  # the trained model is saved


def test_grpo_calls_the_tools_of_a_tool_env_and_logs_its_rewards(tmp_path: Path) -> None:
    env_cls = recording(ScoredEcho)
    with served(create_app(env_cls, enable_web=False)) as url:
        summary = run_example("trl_echo.py", tmp_path, "--base-url", url, f"--max-steps={STEPS}")
    check_run(summary, env_cls.episodes)
    # Echo's rewards are the length of what was echoed: calls made, rewards non-zero.
    assert any(reward > 0 for reward in summary["logged_rewards"])


def example(name: str) -> Any:
    """The module ``examples/<name>.py``, imported."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.mark.parametrize(
    ("script", "env_name", "tool", "argument", "answer"),
    [
        ("trl_wordle", "WordleGame", "guess", "crane", "CRANE: "),
        ("trl_echo", "EchoTools", "echo_message", "hi", "hi"),
    ],
)
def test_without_a_url_an_example_serves_its_env_in_process(
    script: str, env_name: str, tool: str, argument: str, answer: str
) -> None:
    module = example(script)
    with module.env_server(None, module.make_app) as url:
        sessions = module.Sessions(getattr(module, env_name), url)
        env = sessions()
        try:
            env.reset(seed=3)
            assert getattr(env, tool)(argument).startswith(answer)
        finally:
            sessions.close()
    assert (env.calls.resets, env.calls.steps) == (1, 1)
