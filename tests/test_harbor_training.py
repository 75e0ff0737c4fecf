"""GRPO on captured Harbor traces, offline: rollouts of the shipped tasks by a small bash-tool
agent in the process sandbox, through the capture proxy, against the scripted TEST engine; then
optimizer steps on a copy of the engine's tiny model (CPU), and the trained weights served back.

Covered: the trainer's logprobs of the captured tokens are the engine's (same ids, same model);
a few steps give a finite loss and change the weights; served back, the trained weights make the
rewarded reply more likely in the next rollout's capture; the example trains from saved rollout
results and writes a checkpoint that ``from_pretrained`` loads; an eval capture (no token ids)
is refused with the error that says how to serve the model.
"""

from __future__ import annotations

import contextlib
import importlib.util
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
import torch
from harbor_support import MODEL, TRAIN, sandbox_or_skip
from transformers import LlamaConfig, LlamaForCausalLM

from openenv.core.harness.capture import (
    CaptureLevel,
    CaptureProxy,
    EvalCaptureError,
    Upstream,
    create_capture_app,
)
from openenv.core.harness.capture.probe import probe_capture_level
from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.harnesses import Harness, HarnessCommand
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.rollout import RolloutResult, run_rollout
from openenv.core.harness.tasks import HarborTask, load_task, shipped_tasks
from openenv.core.harness.train import (
    Rollout,
    TraceGRPO,
    TraceTrainingError,
    engine_policy,
    group_advantages,
    load_rollouts,
    serve_weights,
)
from openenv.sandbox.isolation import sandbox_python
from tests.conftest import ROOT

TASKS = ("hello-file", "fix-add")

# A TEST harness: a bash-tool agent on the standard library, so a rollout takes a second (the
# real harnesses are tested in test_harbor_rollout.py). It asks the model, runs each bash call
# in the task's directory, sends the output back, and stops when the model submits or is done.
AGENT = r"""
import json, subprocess, sys, urllib.request
base, key, model, task = sys.argv[1:5]
bash = {"type": "function", "function": {"name": "bash", "description": "run a shell command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}
messages = [{"role": "user", "content": task}]
for _ in range(8):
    body = json.dumps({"model": model, "messages": messages, "tools": [bash]}).encode()
    headers = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
    request = urllib.request.Request(base + "/chat/completions", body, headers)
    reply = json.load(urllib.request.urlopen(request, timeout=120))["choices"][0]["message"]
    calls = reply.get("tool_calls") or []
    messages.append({"role": "assistant", "content": reply.get("content") or ""})
    if calls:
        messages[-1]["tool_calls"] = calls
    else:
        break
    for call in calls:
        command = json.loads(call["function"]["arguments"]).get("command", "")
        if "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in command:
            sys.exit(0)
        ran = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=60)
        output = (ran.stdout + ran.stderr)[-2000:]
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
"""


class BashToolAgent(Harness):
    """The TEST harness above."""

    name = "test-bash-tool-agent"

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        return HarnessCommand(
            [sandbox_python(), "-c", AGENT, base_url, api_key, model, instruction]
        )


@pytest.fixture(scope="module", autouse=True)
def _sandbox() -> None:
    sandbox_or_skip()


def task(name: str) -> HarborTask:
    return load_task(shipped_tasks() / name)


def example() -> ModuleType:
    """``examples/harbor_trl/train.py``, imported."""
    path = ROOT / "examples" / "harbor_trl" / "train.py"
    spec = importlib.util.spec_from_file_location("harbor_trl_train", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE = example()


def policies(t: HarborTask) -> dict[str, ScriptedPolicy]:
    """The TEST engine's two scripted policies for ``t``: one solves it, one does not."""
    return EXAMPLE.scripted_policies(t)


@dataclass
class Stack:
    """The scripted TEST engine and the capture proxy in front of it, served on loopback."""

    engine: Engine
    proxy: CaptureProxy
    proxy_url: str

    def rollout(self, t: HarborTask, policy: ScriptedPolicy) -> RolloutResult:
        self.engine.script = policy  # rollouts run one at a time
        result = run_rollout(
            t, proxy=self.proxy, proxy_url=self.proxy_url, harness=BashToolAgent(), model=MODEL
        )
        assert result.status == "ok", (result.reason, result.log_tail)
        return result


@contextlib.contextmanager
def stack(engine: Engine, level: CaptureLevel | None = None, **app: bool) -> Iterator[Stack]:
    with serve_in_thread(create_engine_app(engine, **app)) as engine_url:
        level = level or probe_capture_level(f"{engine_url}/v1")
        proxy = CaptureProxy(Upstream(f"{engine_url}/v1", model=MODEL), level)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            yield Stack(engine, proxy, proxy_url)


@pytest.fixture(scope="module")
def served() -> Iterator[Stack]:
    with stack(Engine(script=bash_policy([])), TRAIN) as s:
        yield s


@pytest.fixture(scope="module")
def groups(served: Stack) -> list[list[RolloutResult]]:
    """Per shipped task, a rollout that solves it and one that does not."""
    out = []
    for name in TASKS:
        t = task(name)
        out.append([served.rollout(t, p) for p in policies(t).values()])
    return out


def first_turn_logp(result: RolloutResult) -> float:
    """The mean captured logprob of the rollout's first reply."""
    assert result.trace is not None
    return statistics.fmean(result.trace.turns[0].per_token_logps)


def test_the_rollouts_are_trainable_and_rewarded_by_the_verifier(
    groups: list[list[RolloutResult]],
) -> None:
    for solved, idle in groups:
        assert (solved.reward, idle.reward) == (1.0, 0.0)
        for result in (solved, idle):
            assert result.capture is not None and result.capture.rollout_type == "train"
            assert result.trace is not None and len(result.trace.turns) == 2  # command, submit
    assert group_advantages([1.0, 0.0]) == pytest.approx([0.7071, -0.7071], abs=1e-3)
    assert group_advantages([1.0, 1.0]) == [0.0, 0.0]  # nothing to learn from a tie


def test_grpo_steps_change_the_weights_and_the_engine_serves_them(
    served: Stack, groups: list[list[RolloutResult]]
) -> None:
    policy = engine_policy(served.engine)
    before = {name: p.detach().clone() for name, p in policy.named_parameters()}
    trainer = TraceGRPO(policy, learning_rate=1e-3)
    rollouts = [[Rollout.of(r) for r in group] for group in groups]
    stats = [trainer.step(rollouts) for _ in range(3)]

    # The trainer reads the captured tokens as the engine scored them: same ids, same model.
    assert stats[0].logp_gap < 1e-3
    assert stats[0].ratio_mean == pytest.approx(1.0, abs=1e-3)
    assert stats[0].tokens == sum(
        len(t.completion_token_ids) for group in rollouts for r in group for t in r.trace.turns
    )
    for s in stats:
        assert torch.isfinite(torch.tensor([s.loss, s.grad_norm])).all(), s
        assert s.reward_mean == 0.5 and s.rollouts == 4 and s.turns == 8
    assert stats[1].logp_gap > 0  # the second step saw the updated policy
    changed = [n for n, p in policy.named_parameters() if not torch.equal(p, before[n])]
    assert changed, "no weight changed"

    # Served back, the trained weights make the rewarded reply more likely, and more so than
    # the other one.
    solved, idle = groups[0]
    serve_weights(served.engine, policy)
    t = task(TASKS[0])
    again = {name: served.rollout(t, p) for name, p in policies(t).items()}
    assert again["solve"].trace and solved.trace
    assert again["solve"].trace.turns[0].prompt_token_ids == solved.trace.turns[0].prompt_token_ids
    assert first_turn_logp(again["solve"]) > first_turn_logp(solved)
    gained = first_turn_logp(again["solve"]) - first_turn_logp(again["idle"])
    assert gained > first_turn_logp(solved) - first_turn_logp(idle)


def test_the_example_trains_on_saved_rollouts_and_saves_a_checkpoint(
    groups: list[list[RolloutResult]], tmp_path: Path
) -> None:
    from transformers import AutoModelForCausalLM

    runs = tmp_path / "runs"
    runs.mkdir()
    for n, result in enumerate(r for group in groups for r in group):
        (runs / f"rollout-{n}.json").write_text(result.model_dump_json())
    out = tmp_path / "checkpoint"
    code = EXAMPLE.main(["--runs", str(runs), "--steps", "2", "--output", str(out)])
    assert code == 0
    trained = AutoModelForCausalLM.from_pretrained(out)  # what a user's model id goes through
    assert (out / "tokenizer.json").is_file()
    original = Engine().lm.model  # the weights that served the rollouts (seed 0)
    assert any(
        not torch.equal(a, b)
        for a, b in zip(trained.parameters(), original.parameters(), strict=True)
    )
    # The checkpoint trains on as a user's model does (by folder: from_pretrained, its tokenizer).
    again = ["--runs", str(runs), "--model", str(out), "--steps", "1", "--output", str(out / "2")]
    assert EXAMPLE.main(again) == 0
    assert (out / "2" / "model.safetensors").is_file()


def test_an_eval_capture_is_refused_with_how_to_serve_the_model(tmp_path: Path) -> None:
    t = task("hello-file")
    # An endpoint that ignores return_token_ids: the probe makes the capture eval only.
    with stack(Engine(script=bash_policy([])), token_ids=False) as eval_stack:
        assert eval_stack.proxy.level.rollout_type == "eval"
        result = eval_stack.rollout(t, policies(t)["solve"])
    assert result.reward == 1.0 and result.trace is None
    assert result.capture is not None and result.capture.nodes  # the calls were captured
    with pytest.raises(EvalCaptureError, match="eval only") as refused:
        result.capture.to_turn_records()
    assert "--return-tokens-as-token-ids" in str(refused.value)
    with pytest.raises(EvalCaptureError, match="eval only"):
        Rollout.of(result)
    saved = tmp_path / "eval-rollout.json"
    saved.write_text(result.model_dump_json())
    with pytest.raises(EvalCaptureError, match=str(saved)):
        load_rollouts([saved])
    assert EXAMPLE.main(["--runs", str(saved), "--output", str(tmp_path / "out")]) == 1


def test_rollouts_without_a_reward_or_tokens_for_this_model_are_refused(
    groups: list[list[RolloutResult]],
) -> None:
    broken = groups[0][0].model_copy(update={"reward": None, "status": "verifier_error"})
    with pytest.raises(TraceTrainingError, match="no reward to train on"):
        Rollout.of(broken)
    config = LlamaConfig(
        vocab_size=8, hidden_size=8, intermediate_size=8, num_hidden_layers=1, num_attention_heads=1
    )
    trainer = TraceGRPO(LlamaForCausalLM(config))  # another model: a vocabulary of 8
    with pytest.raises(TraceTrainingError, match="outside the model's vocabulary of 8"):
        trainer.step([[Rollout.of(r) for r in groups[0]]])


def test_the_examples_loop_serves_each_steps_weights_to_the_next_rollouts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    argv = ["--steps", "2", "--tasks", "hello-file", "--save-runs", str(runs)]
    assert EXAMPLE.main(argv, harness=BashToolAgent()) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("step ")]
    assert len(lines) == 2 and all("reward=0.50" in line for line in lines)
    first, second = (
        {p: load_rollouts([runs / f"step{n}-hello-file-{p}.json"])[0] for p in ("solve", "idle")}
        for n in (0, 1)
    )
    # The second step's rollouts were scored by the weights the first step trained: the
    # rewarded reply is more likely, and more so than the other one.
    logp = EXAMPLE.first_reply_logp
    assert logp(second["solve"]) > logp(first["solve"])
    assert logp(second["solve"]) - logp(second["idle"]) > logp(first["solve"]) - logp(first["idle"])
