"""GRPO with TRL's ``AsyncGRPOTrainer`` on Harbor rollouts: coding agents in sandboxes, every model
call captured as the engine's tokens, the task verifier's reward.

TRL's ``HarnessRolloutWorker`` (``trl.experimental.async_grpo``, TRL 1.16) in its loop-owning
mode: per rollout it asks ``HarborSessionFactory`` (``harbor_env.sessions``) for a session, which
runs one rollout on the Harbor server (the agent owns its loop), then reads the session's
``TrainingTrace`` (the engine's prompt/completion ids, logprobs, loss masks) and its reward.
The rollouts of a group share a task: the task is drawn from the group's seed. The dataset's
prompts are not sent (each agent gets its task's instruction); they only pace the groups.

What runs where (it needs vLLM and a CUDA GPU to run whole: TRL's trainer streams weights to
vLLM over NCCL and packs samples with a CUDA attention kernel)::

    # 1. the policy, served by vLLM for TRL (weight sync) with token ids for the capture:
    trl vllm-serve --model Qwen/Qwen3-0.6B --port 8001 --return-tokens-as-token-ids
    # 2. the Harbor server, its endpoint that vLLM ([TRAIN] captures):
    openenv harbor serve --llm-url http://localhost:8001/v1 --port 8000 --dataset org/tasks
    # 3. this script:
    python examples/harbor_trl/async_grpo.py --harbor-url http://localhost:8000 \\
        --model Qwen/Qwen3-0.6B --vllm-url http://localhost:8001

``--dry-run`` stops after building the factory as TRL's worker does (it reaches the Harbor
server, counts its tasks, checks TRL's sampling policy): no vLLM, no GPU.
An eval-only endpoint (no token ids) stops training with TRL's ``CaptureContractError``.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence

from harbor_env.sessions import HarborSessionFactory


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--harbor-url", required=True, help="the Harbor server (openenv harbor serve)")
    p.add_argument("--split", default="", help="its task split (default: its first)")
    p.add_argument("--harness", default="mini-swe-agent", help="the agent of each rollout")
    p.add_argument("--sandbox", default="process", help="where the agent runs: process, docker")
    p.add_argument("--model", default="Qwen/Qwen3-0.6B", help="the policy (vLLM serves it)")
    p.add_argument("--vllm-url", default="http://localhost:8001", help="vLLM, for weight sync")
    p.add_argument("--num-generations", type=int, default=4, help="rollouts per group (task)")
    p.add_argument("--max-inflight", type=int, default=8, help="rollouts running at once")
    p.add_argument("--temperature", type=float, default=1.0, help="the sampling temperature")
    p.add_argument("--max-steps", type=int, default=100)
    p.add_argument("--output-dir", default="harbor-async-grpo")
    p.add_argument("--dry-run", action="store_true", help="build the factory, then stop")
    return p.parse_args(argv)


def session_factory(args: argparse.Namespace) -> functools.partial[HarborSessionFactory]:
    """What the worker is given: it calls it (in its own process) with ``sampling=``."""
    return functools.partial(
        HarborSessionFactory,
        args.harbor_url,
        split=args.split,
        harness=args.harness,
        sandbox=args.sandbox,
    )


def dry_run(args: argparse.Namespace) -> int:
    from openenv.core.harness.capture.upstream import training_sampling

    policy = {"temperature": args.temperature, "top_p": 1.0, "top_k": 0}  # TRL's defaults
    factory = session_factory(args)(sampling=training_sampling(policy))
    try:
        print(f"split {factory.split!r}: {len(factory.tasks)} tasks, sampling {factory.sampling}")
    finally:
        factory.close()
    return 0


def train(args: argparse.Namespace) -> int:
    from datasets import Dataset
    from transformers import AutoTokenizer, GenerationConfig
    from trl.experimental.async_grpo import AsyncGRPOConfig, AsyncGRPOTrainer
    from trl.experimental.async_grpo.openenv_harness import HarnessRolloutWorker

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    eos = GenerationConfig.from_pretrained(args.model).eos_token_id  # as the trainer reads it
    eos_ids = list(eos) if isinstance(eos, list) else [] if eos is None else [eos]
    if tokenizer.eos_token_id not in eos_ids:
        eos_ids.insert(0, tokenizer.eos_token_id)
    # One row per task; the prompt is a placeholder (each agent gets its task's instruction).
    probe = session_factory(args)()
    n_tasks = len(probe.tasks)
    probe.close()
    dataset = Dataset.from_dict({"prompt": [[{"role": "user", "content": "task"}]] * n_tasks})
    config = AsyncGRPOConfig(
        output_dir=args.output_dir,
        num_generations=args.num_generations,
        max_inflight_tasks=args.max_inflight,  # within the Harbor server's queue (--max-queued)
        temperature=args.temperature,
        max_steps=args.max_steps,
        vllm_server_base_url=args.vllm_url,
    )
    worker = HarnessRolloutWorker(
        harness_session_factory=session_factory(args),
        model_name=args.model,
        dataset=dataset,
        reward_funcs=[],  # the verifier's reward (the worker's harness_reward)
        processing_class=tokenizer,
        eos_token_ids=eos_ids,
        num_generations=config.num_generations,
        max_inflight_tasks=config.max_inflight_tasks,
        vllm_server_url=config.vllm_server_base_url,
        temperature=config.temperature,
        top_p=config.top_p,
        top_k=config.top_k,
    )
    trainer = AsyncGRPOTrainer(
        model=args.model,
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        rollout_worker=worker,
    )
    trainer.train()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    return dry_run(args) if args.dry_run else train(args)


if __name__ == "__main__":
    sys.exit(main())
