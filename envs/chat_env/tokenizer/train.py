"""Rebuild the shipped tokenizer: ``python -m chat_env.tokenizer.train``.

A byte-level BPE (the ``tokenizers`` package) trained on ``corpus.txt``, a short text written
for this project, with ChatML's special tokens and chat template. Byte-level, so any text
encodes (unknown words fall back to bytes); small (a few hundred merges), so it ships in the
package and nothing is downloaded. Deterministic: the same corpus gives the same files.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
VOCAB_SIZE = 1024
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def train() -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    text = (HERE / "corpus.txt").read_text(encoding="utf-8").splitlines()
    tokenizer.train_from_iterator(text, trainer=trainer)
    tokenizer.save(str(HERE / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": 32768,
        "bos_token": None,
        "eos_token": "<|im_end|>",
        "pad_token": "<|endoftext|>",
        "unk_token": None,
        "additional_special_tokens": ["<|im_start|>"],
        "chat_template": CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": False,
    }
    (HERE / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")


if __name__ == "__main__":
    train()
