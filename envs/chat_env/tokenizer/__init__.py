"""Tokenizers for chat_env: the shipped one, or any Hugging Face model's, loaded the same way.

``load_tokenizer(name)`` is ``transformers.AutoTokenizer.from_pretrained(name)``, cached per
name. ``name`` defaults to ``$TOKENIZER_NAME`` (the reference's variable), and to the tokenizer
shipped in this folder when that is unset: a small byte-level BPE with ChatML's chat template
(``train.py`` rebuilds it), so nothing is downloaded. A model id (``Qwen/Qwen2.5-0.5B-Instruct``,
``gpt2``) loads that model's tokenizer from the Hub or the local cache instead.

``encode_message`` / ``decode_message`` turn one message into token ids and back, through the
tokenizer's chat template (or ``"role: content\\n"`` for a tokenizer without one, as the
reference does). Used by the client (``ChatEnv.message_to_action``) and the server alike.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SHIPPED = str(Path(__file__).resolve().parent)
ENV_VAR = "TOKENIZER_NAME"
ROLES = ("system", "user", "assistant", "tool")
_MARK = "\ue000CONTENT\ue000"  # a private-use character no message contains by accident
_PLAIN = re.compile(r"^(system|user|assistant|tool): (.*?)\n?$", re.DOTALL)


def tokenizer_name() -> str:
    """``$TOKENIZER_NAME``, or the path of the shipped tokenizer."""
    return os.environ.get(ENV_VAR, "").strip() or SHIPPED


@functools.lru_cache(maxsize=4)
def load_tokenizer(name: str | None = None) -> Any:
    """``AutoTokenizer.from_pretrained(name or tokenizer_name())``, once per name."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(name or tokenizer_name())


def encode_message(tokenizer: Any, message: Mapping[str, Any]) -> list[int]:
    """The token ids of one message, through the chat template (``role: content`` without)."""
    if "role" not in message or "content" not in message:
        raise ValueError("a message needs a 'role' and a 'content'")
    if message["content"] is None:
        raise ValueError("a message's content cannot be None")
    conversation = [{"role": str(message["role"]), "content": str(message["content"])}]
    if getattr(tokenizer, "chat_template", None):
        ids = tokenizer.apply_chat_template(conversation, tokenize=True)
        ids = ids["input_ids"] if isinstance(ids, Mapping) else ids
        return [int(t) for t in (ids[0] if ids and isinstance(ids[0], list) else ids)]
    text = f"{conversation[0]['role']}: {conversation[0]['content']}\n"
    return [int(t) for t in tokenizer.encode(text, add_special_tokens=False)]


def decode_message(tokenizer: Any, ids: list[int]) -> dict[str, str]:
    """The message ``ids`` spell: its role and content when they are one templated message,
    else ``{"role": "assistant", "content": <the text>}`` (a model's raw generation)."""
    full = tokenizer.decode(ids, skip_special_tokens=False)
    for role, (prefix, suffix) in _frames(tokenizer).items():
        if len(full) >= len(prefix) + len(suffix) and full.startswith(prefix):
            if full.endswith(suffix):
                return {"role": role, "content": full[len(prefix) : len(full) - len(suffix)]}
            if suffix.endswith("\n") and full.endswith(suffix.rstrip("\n")):  # no newline after
                return {"role": role, "content": full[len(prefix) : len(full) - len(suffix) + 1]}
    text = tokenizer.decode(ids, skip_special_tokens=True)
    plain = None if getattr(tokenizer, "chat_template", None) else _PLAIN.match(text)
    if plain:
        return {"role": plain.group(1), "content": plain.group(2)}
    return {"role": "assistant", "content": text}


def _frames(tokenizer: Any) -> dict[str, tuple[str, str]]:
    """Per role, the text the chat template puts before and after a message's content."""
    cached = _FRAMES.get(id(tokenizer))
    if cached is not None and cached[0] is tokenizer:
        return cached[1]
    frames: dict[str, tuple[str, str]] = {}
    if getattr(tokenizer, "chat_template", None):
        for role in ROLES:
            try:
                text = tokenizer.apply_chat_template(
                    [{"role": role, "content": _MARK}], tokenize=False
                )
            except Exception:  # a template that refuses this role (some allow no system)
                continue
            if isinstance(text, str) and text.count(_MARK) == 1:
                prefix, suffix = text.split(_MARK)
                if prefix:
                    frames[role] = (prefix, suffix)
    _FRAMES[id(tokenizer)] = (tokenizer, frames)
    return frames


_FRAMES: dict[int, tuple[Any, dict[str, tuple[str, str]]]] = {}
