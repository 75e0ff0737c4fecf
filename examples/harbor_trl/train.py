"""Train a policy with GRPO on captured Harbor rollouts (``openenv.core.harness.train``).

Two ways to run it::

    # Offline, on rollouts you captured (``openenv harbor rollout --out runs/r1.json``, ...):
    # grouped by task, each turn's completion trained on with its rollout's advantage.
    python examples/harbor_trl/train.py --runs runs/ --model Qwen/Qwen3-0.6B --output ckpt/

    # The whole loop in this process, offline: the shipped TEST engine (a tiny model scoring
    # scripted replies: one policy solves each task, one does not) behind the capture proxy,
    # a harness (mini-swe-agent: ``openenv harbor install mini-swe-agent``) on the shipped
    # tasks, a GRPO step on a copy of the engine's model, the trained weights served back.
    python examples/harbor_trl/train.py --steps 3

``--model`` is a Hub id or a folder loaded with ``AutoModelForCausalLM.from_pretrained``; it must
be the model (and tokenizer) that served the rollouts: the traces hold that engine's token ids.
The default, ``tiny``, is the shipped test engine's model (built from a config, no download).
The trained checkpoint goes to ``--output`` (``save_pretrained``); serve it with vLLM
(``--return-tokens-as-token-ids --logprobs-mode processed_logprobs``) for the next rollouts.

In the in-process loop the TEST engine's replies are scripted, not sampled: training cannot change
what it says, only how likely the model finds it, which the loop prints (the rewarded reply's
mean logprob rises step after step, and gains on the other's). A sampling engine serves the new
weights the same way (``serve_weights``).

TRL's ``AsyncGRPOTrainer`` with ``HarnessRolloutWorker`` (trl.experimental.async_grpo, TRL
1.16) trains on the same ``TrainingTrace`` through ``harbor_env.HarborSessionFactory``: see
``async_grpo.py`` beside this file. It cannot run whole here: the trainer talks to a vLLM server
(``VLLMClient``) and streams weights to it over NCCL, and its tree attention loads the
``kernels-community/flash-attn3`` CUDA kernel from the Hub; neither vLLM, a GPU nor the Hub is
here. This script's loss is the same GRPO objective on the same fields, on CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from openenv.core.harness.capture import (
    CaptureProxy,
    EvalCaptureError,
    Upstream,
    create_capture_app,
)
from openenv.core.harness.capture.probe import ProbeError, probe_capture_level
from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.engine.tokenizer import build_tokenizer
from openenv.core.harness.harnesses import Harness, HarnessUnavailable, get_harness
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.rollout import RolloutResult, run_rollout
from openenv.core.harness.tasks import HarborTask, TaskError, load_task, shipped_tasks
from openenv.core.harness.train import (
    Rollout,
    StepStats,
    TraceGRPO,
    TraceTrainingError,
    engine_policy,
    group_by_task,
    load_policy,
    load_rollouts,
    serve_weights,
)

TINY = "tiny"
ENGINE_MODEL = "openenv/tiny-test-lm"
GAP_NOTE = 0.05  # mean |logprob difference| a token above which the traces look off-policy


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (``--help`` lists it)."""
    p = argparse.ArgumentParser(description="GRPO on captured Harbor rollouts")
    p.add_argument("--runs", nargs="+", type=Path, help="saved rollout results (files, folders)")
    p.add_argument("--model", default=TINY, help=f"Hub id or folder, or {TINY!r} (default)")
    p.add_argument("--steps", type=int, default=3, help="optimizer steps (default 3)")
    p.add_argument("--learning-rate", type=float, help="default 1e-3 for tiny, else 1e-6")
    p.add_argument("--temperature", type=float, default=1.0, help="the rollouts' sampling one")
    p.add_argument("--epsilon", type=float, default=0.2, help="PPO clip range")
    p.add_argument("--output", type=Path, help="save the trained model (and tokenizer) here")
    p.add_argument("--harness", default="mini-swe-agent", help="in-process loop: the agent")
    p.add_argument("--tasks", nargs="+", default=["hello-file", "fix-add"], help="shipped tasks")
    p.add_argument("--save-runs", type=Path, help="in-process loop: write each rollout here")
    args = p.parse_args(argv)
    if args.steps < 1:
        p.error("--steps must be at least 1")
    if args.runs is None and args.model != TINY:
        p.error("the in-process loop trains the test engine's model: --model tiny, or --runs")
    return args


def scripted_policies(task: HarborTask) -> dict[str, ScriptedPolicy]:
    """The TEST engine's scripted policies for ``task``: ``solve`` runs its solution/solve.sh
    through the bash tool, ``idle`` only lists files."""
    solve = (task.path / "solution" / "solve.sh").read_text(encoding="utf-8").strip()
    return {"solve": bash_policy([solve]), "idle": bash_policy(["ls -la"])}


def trainer_for(model: Any, args: argparse.Namespace) -> TraceGRPO:
    """The GRPO trainer with the command line's settings."""
    lr = args.learning_rate or (1e-3 if args.model == TINY else 1e-6)
    return TraceGRPO(model, learning_rate=lr, temperature=args.temperature, epsilon=args.epsilon)


def save(model: Any, args: argparse.Namespace) -> None:
    """The trained model, and the tokenizer the traces were made with, to ``--output``."""
    if args.output is None:
        return
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    model.save_pretrained(args.output)
    if args.model == TINY:
        tokenizer = PreTrainedTokenizerFast(tokenizer_object=build_tokenizer())
    else:
        tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.save_pretrained(args.output)
    print(f"saved the trained model to {args.output}")


def train_on_runs(args: argparse.Namespace) -> list[StepStats]:
    """``--steps`` GRPO steps on the saved rollouts of ``--runs``, grouped by task."""
    groups = group_by_task(load_rollouts(args.runs))
    sizes = ", ".join(f"{g[0].task or '?'}: {len(g)}" for g in groups)
    print(f"{sum(map(len, groups))} rollouts in {len(groups)} group(s) ({sizes})")
    model = engine_policy(Engine()) if args.model == TINY else load_policy(args.model)
    trainer = trainer_for(model, args)
    stats = []
    for _ in range(args.steps):
        stats.append(trainer.step(groups))
        print(stats[-1].line())
    if stats[0].logp_gap > GAP_NOTE:
        print(
            f"note: before the first update the model's logprobs were {stats[0].logp_gap:.3f} a "
            "token from the captured ones: the rollouts came from other weights or another "
            "--temperature (the importance ratio corrects a little drift, not another model)"
        )
    save(model, args)
    return stats


@contextlib.contextmanager
def served_engine(engine: Engine) -> Iterator[tuple[CaptureProxy, str]]:
    """The engine and a capture proxy in front of it, on loopback: (proxy, its URL)."""
    with serve_in_thread(create_engine_app(engine)) as engine_url:
        level = probe_capture_level(f"{engine_url}/v1")
        proxy = CaptureProxy(Upstream(f"{engine_url}/v1", model=ENGINE_MODEL), level)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            yield proxy, proxy_url


def train_in_process(args: argparse.Namespace, harness: Harness | None = None) -> list[StepStats]:
    """Rollouts of the shipped tasks (each under both TEST policies), a GRPO step on them, the
    new weights served; ``--steps`` times."""
    harness = harness or get_harness(args.harness)
    if problem := harness.problem():
        raise HarnessUnavailable(problem)
    tasks = [load_task(shipped_tasks() / name) for name in args.tasks]
    engine = Engine(script=bash_policy([]))
    model = engine_policy(engine)
    trainer = trainer_for(model, args)
    stats: list[StepStats] = []
    with served_engine(engine) as (proxy, proxy_url):
        for step in range(args.steps):
            groups, replies = [], {}
            for task in tasks:
                group = []
                for name, policy in scripted_policies(task).items():
                    engine.script = policy  # one rollout at a time
                    result = run_rollout(
                        task, proxy=proxy, proxy_url=proxy_url, harness=harness, model=ENGINE_MODEL
                    )
                    keep(result, args.save_runs, step, name)
                    group.append(Rollout.of(result))
                    replies.setdefault(name, []).append(first_reply_logp(group[-1]))
                groups.append(group)
            stats.append(trainer.step(groups))
            serve_weights(engine, model)
            shown = ", ".join(f"{k} {statistics.fmean(v):.3f}" for k, v in replies.items())
            print(f"{stats[-1].line()}  (first reply's mean logprob in its rollouts: {shown})")
    save(model, args)
    return stats


def first_reply_logp(rollout: Rollout) -> float:
    """The mean logprob of a rollout's first reply, as the engine scored it."""
    return statistics.fmean(rollout.trace.turns[0].per_token_logps)


def keep(result: RolloutResult, folder: Path | None, step: int, policy: str) -> None:
    """Write the rollout result to ``folder`` (for ``--runs`` later), when given."""
    print(f"  [{policy}] {result.task}: {result.summary_line()}")
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"step{step}-{result.task}-{policy}.json"
        path.write_text(result.model_dump_json(), encoding="utf-8")


def main(argv: Sequence[str] | None = None, harness: Harness | None = None) -> int:
    """Run the example; 0 on success, 1 with the reason on stderr."""
    args = parse_args(argv)
    try:
        if args.runs is not None:
            train_on_runs(args)
        else:
            train_in_process(args, harness)
    except (TraceTrainingError, EvalCaptureError, HarnessUnavailable, TaskError, ProbeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
