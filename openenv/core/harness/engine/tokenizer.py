"""A byte-level BPE tokenizer trained on the spot from a built-in corpus (no download).

The vocabulary is small and fixed by the corpus, so every run of the test engine tokenises the
same text to the same ids. Special tokens frame chat turns and tool calls.
"""

from __future__ import annotations

from functools import lru_cache

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

SPECIAL_TOKENS = ["<|pad|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]
VOCAB_SIZE = 512

_CORPUS = [
    "You are a helpful coding agent. Read the task, run commands, and answer.",
    "The user asks a question; the assistant calls a tool and reads the result.",
    "def solve(x):\n    return x * 2\n\nprint(solve(21))\n",
    'import os\nimport sys\nfor line in open("input.txt"):\n    print(line.strip())\n',
    '{"name": "bash", "arguments": {"command": "ls -la /app && cat README.md"}}',
    '{"type": "function", "function": {"name": "write_file", "parameters": {}}}',
    "echo hello > /app/answer.txt; cat /app/answer.txt; pytest -q tests/",
    "The answer is 42. Done. All tests passed. Error: file not found.",
    "system user assistant tool content role tool_calls function arguments",
    "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 _-+=*/\\|<>[]{}()",
]


@lru_cache(maxsize=1)
def build_tokenizer() -> Tokenizer:
    """The engine's tokenizer: byte-level BPE over the built-in corpus (deterministic)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    return tok


def token_bytes(tok: Tokenizer, token_id: int) -> list[int]:
    """The UTF-8 bytes a single token decodes to (as vLLM reports them)."""
    return list(tok.decode([token_id], skip_special_tokens=False).encode("utf-8"))
