"""What the TRL examples share: the command line, the env server, the policy, the training run.

``trl_wordle.py`` and ``trl_echo.py`` each define an environment class in TRL's
``environment_factory`` shape (one OpenEnv client per rollout, ``reset``, one public method per
tool, ``get_reward`` returning the rewards the server gave) and call :func:`train`.

``--model tiny`` (the default) needs no download: a small Qwen2-shaped causal LM with random
weights and a byte-level BPE tokenizer trained here on the run's own text (Qwen's chat template,
so TRL's tool-calling path runs unchanged). A short supervised warm-up teaches it the tool-call
format, so its rollouts reach the environment; it is then saved to a folder that
``GRPOTrainer`` loads with ``from_pretrained``, the path a Hub model id takes too. With
``--model Qwen/Qwen3-0.6B`` the same script trains that model instead (no warm-up).

Without ``--base-url`` the environment is served in this process, on a free loopback port.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import time
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TINY = "tiny"
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Plain added tokens, as in Qwen's tokenizer: decoding keeps them, so TRL can parse tool calls.
TOOL_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]
START_TIMEOUT_S = 60.0
# The warm-up: sequences per step, learning rate. About 80 steps teach the tool-call format.
WARMUP_BATCH = 4
WARMUP_LR = 5e-3


def parse_args(description: str, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options every example takes (``--help`` lists them)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--base-url", help="a running env server; default: serve one in-process")
    p.add_argument("--model", default=TINY, help=f"a model id or folder, or {TINY!r} (default)")
    p.add_argument("--max-steps", type=int, default=3, help="optimizer steps (default 3)")
    p.add_argument("--num-generations", type=int, default=4, help="rollouts per prompt")
    p.add_argument("--prompts-per-step", type=int, default=2, help="prompts per optimizer step")
    p.add_argument(
        "--max-completion-length",
        type=int,
        default=96,
        help="tokens per rollout (tool answers too)",
    )
    p.add_argument("--learning-rate", type=float, default=1e-4, help="a real model wants ~1e-6")
    p.add_argument("--warmup-steps", type=int, default=80, help="tool-call warm-up (tiny only)")
    p.add_argument("--output-dir", default="trl-output", help="trainer output folder")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


# -- the env server ---------------------------------------------------------------------------


@contextlib.contextmanager
def env_server(base_url: str | None, make_app: Callable[[], Any]) -> Iterator[str]:
    """Yield ``base_url``, or serve ``make_app()`` from a thread of this process until the block
    ends and yield its loopback URL."""
    if base_url:
        yield base_url.rstrip("/")
        return
    from openenv.cli.serve import serve_in_thread

    with serve_in_thread(make_app(), start_timeout_s=START_TIMEOUT_S) as url:
        yield url


class Sessions:
    """TRL's ``environment_factory``: each call makes one environment (one client, one session).

    TRL keeps the instances in a pool and resets them for every batch, so a run opens one
    WebSocket per concurrent rollout, once. :meth:`close` closes them all at the end; ``steps``
    and ``env_seconds`` add up what every instance did (the bench reads them).
    """

    def __init__(self, env_cls: Callable[[str], Any], base_url: str) -> None:
        self.env_cls, self.base_url = env_cls, base_url
        self.opened: list[Any] = []

    def __call__(self) -> Any:
        env = self.env_cls(self.base_url)
        self.opened.append(env)
        return env

    @property
    def steps(self) -> int:
        return sum(env.calls.steps for env in self.opened)

    @property
    def resets(self) -> int:
        return sum(env.calls.resets for env in self.opened)

    @property
    def env_seconds(self) -> float:
        return sum(env.calls.seconds for env in self.opened)

    def close(self) -> None:
        for env in self.opened:
            env.client.close()


@dataclass
class Calls:
    """What one environment instance sent its server: resets, steps, time spent waiting."""

    resets: int = 0
    steps: int = 0
    seconds: float = 0.0

    @contextlib.contextmanager
    def timed(self) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds += time.perf_counter() - start


# -- the policy -------------------------------------------------------------------------------


@dataclass
class Demo:
    """One warm-up example: a conversation whose last message is the assistant's tool call."""

    messages: list[dict[str, Any]]


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """An assistant message calling tool ``name`` (the shape chat templates render)."""
    call = {"type": "function", "function": {"name": name, "arguments": arguments}}
    return {"role": "assistant", "content": "", "tool_calls": [call]}


def tool_schema(method: Callable) -> dict[str, Any]:
    """The JSON schema a chat template shows for a tool method of an environment class (what
    TRL renders for the bound method: its name, arguments and docstring, without ``self``)."""
    from transformers.utils import get_json_schema

    return get_json_schema(types.MethodType(method, object()))


def tiny_policy(
    folder: Path, tools: list[Callable], demos: list[Demo], corpus: Iterable[str], args: Any
) -> str:
    """Build the tiny model and its tokenizer, warm it up on ``demos``, save both to ``folder``;
    return the folder (a model path for ``GRPOTrainer``)."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    # A model this small runs fastest on one thread; more only contend for the cores.
    torch.set_num_threads(1)
    tools = [tool_schema(t) for t in tools]
    tokenizer = _tokenizer(tools, demos, corpus)
    torch.manual_seed(args.seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    _warm_up(model, tokenizer, tools, demos, args)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def _tokenizer(tools: list[dict], demos: list[Demo], corpus: Iterable[str]) -> Any:
    """A Qwen2 tokenizer (byte-level BPE, Qwen's pre-tokenizer and chat template) whose
    vocabulary is trained on the run's text: the rendered demos (system prompt with the tool
    schemas, prompts, tool calls, tool answers) and ``corpus``."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, trainers
    from tokenizers import pre_tokenizers as pre
    from transformers import Qwen2Tokenizer
    from transformers.models.qwen2.tokenization_qwen2 import PRETOKENIZE_REGEX
    from trl.chat_template_utils import qwen2_5_chat_template

    def qwen2(vocab: dict[str, int] | None = None, merges: list | None = None) -> Any:
        tok = Qwen2Tokenizer(vocab=vocab, merges=merges, eos_token="<|im_end|>")
        tok.add_tokens([AddedToken(t, special=True) for t in SPECIAL_TOKENS], special_tokens=True)
        tok.add_tokens(TOOL_TOKENS)
        tok.chat_template = qwen2_5_chat_template
        return tok

    renderer = qwen2()  # renders text only: no vocabulary needed
    texts = [renderer.apply_chat_template(d.messages, tools=tools, tokenize=False) for d in demos]
    core = Tokenizer(models.BPE())
    core.normalizer = normalizers.NFC()
    split = pre.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated")
    core.pre_tokenizer = pre.Sequence(
        [split, pre.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2000,
        special_tokens=[*SPECIAL_TOKENS, *TOOL_TOKENS],
        initial_alphabet=pre.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator([*texts, *corpus], trainer=trainer)
    trained = json.loads(core.to_str())["model"]
    return qwen2(
        trained["vocab"],
        [tuple(m) if isinstance(m, list) else tuple(m.split()) for m in trained["merges"]],
    )


def _warm_up(model: Any, tokenizer: Any, tools: list[dict], demos: list[Demo], args: Any):
    """Teach the model the tool-call format: supervised steps on the demos' last message."""
    import torch

    rows = []
    for demo in demos:
        prompt = tokenizer.apply_chat_template(
            demo.messages[:-1], tools=tools, add_generation_prompt=True, tokenize=False
        )
        full = tokenizer.apply_chat_template(demo.messages, tools=tools, tokenize=False)
        ids = tokenizer(full, add_special_tokens=False)["input_ids"]
        start = len(tokenizer(prompt, add_special_tokens=False)["input_ids"])
        rows.append((ids, start))
    rng = random.Random(args.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=WARMUP_LR)
    model.train()
    for _ in range(args.warmup_steps):
        batch = rng.sample(rows, min(WARMUP_BATCH, len(rows)))
        width = max(len(ids) for ids, _ in batch)
        pad = tokenizer.pad_token_id
        input_ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in batch])
        mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in batch])
        labels = input_ids.clone()
        for row, (ids, start) in enumerate(batch):
            labels[row, :start] = -100
            labels[row, len(ids) :] = -100
        loss = model(input_ids=input_ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()


# -- the training run -------------------------------------------------------------------------


def train(
    args: argparse.Namespace,
    sessions: Sessions,
    prompts: list[dict[str, Any]],
    tools: list[Callable],
    demos: Callable[[], list[Demo]],
    corpus: Iterable[str] = (),
) -> Any:
    """Run GRPO on the env behind ``sessions`` with ``prompts`` (dataset rows: ``prompt`` plus
    the columns TRL passes to ``reset``); save the trained model; return the trainer."""
    import torch
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    out = Path(args.output_dir)
    model = args.model
    if model == TINY:
        model = tiny_policy(out / "tiny-model", tools, demos(), corpus, args)
    batch = args.num_generations * args.prompts_per_step
    bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    config = GRPOConfig(
        output_dir=str(out),
        max_steps=args.max_steps,
        per_device_train_batch_size=batch,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        learning_rate=args.learning_rate,
        seed=args.seed,
        data_seed=args.seed,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=not torch.cuda.is_available(),
        bf16=bf16,
        gradient_checkpointing=False,
        chat_template_kwargs={"enable_thinking": False},
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=model,
        args=config,
        train_dataset=Dataset.from_list(prompts),
        environment_factory=sessions,
    )
    trainer.train()
    trainer.save_model(str(out / "final"))
    return trainer


def report(trainer: Any, sessions: Sessions) -> dict[str, Any]:
    """What the run did, printed as one JSON line at its end (the bench reads it too)."""
    history = trainer.state.log_history
    seconds = next(row["train_runtime"] for row in reversed(history) if "train_runtime" in row)
    summary = {
        "optimizer_steps": trainer.state.global_step,
        "sessions": len(sessions.opened),
        "env_resets": sessions.resets,
        "env_steps": sessions.steps,
        "train_seconds": round(seconds, 3),
        "env_seconds": round(sessions.env_seconds, 3),
        "logged_rewards": [row["reward"] for row in history if "reward" in row],
    }
    print(json.dumps(summary), flush=True)
    return summary
