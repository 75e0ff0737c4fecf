"""Read the engine's token ids and logprobs off a chat completion (vLLM or SGLang layout)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class CallTokens:
    """What one completion says about its tokens; empty lists when the engine gave none."""

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float] | None
    message: dict[str, Any]
    finish_reason: str | None


def _ids(value: Any) -> list[int]:
    if isinstance(value, list) and all(type(t) is int and t >= 0 for t in value):
        return list(value)
    return []


def _logprobs(choice: dict[str, Any], ids: list[int]) -> list[float] | None:
    entries = (choice.get("logprobs") or {}).get("content") or []
    if not entries or len(entries) != len(ids):
        return None
    values = []
    for token_id, entry in zip(ids, entries, strict=True):
        name = entry.get("token")
        # vLLM with --return-tokens-as-token-ids names each entry; a disagreement means the two
        # channels are shifted, and shifted logprobs would credit the wrong tokens.
        if isinstance(name, str) and name.startswith("token_id:") and name[9:] != str(token_id):
            return None
        logprob = entry.get("logprob")
        if isinstance(logprob, bool) or not isinstance(logprob, int | float) or logprob > 0:
            return None
        values.append(float(logprob))
    return values


def call_tokens(body: dict[str, Any]) -> CallTokens:
    """The ids (top-level ``prompt_token_ids`` as vLLM, or on the choice as SGLang), logprobs
    aligned to the sampled ids (``None`` when absent or misaligned), reply and finish reason."""
    choice = (body.get("choices") or [{}])[0]
    prompt = _ids(body.get("prompt_token_ids")) or _ids(choice.get("prompt_token_ids"))
    completion = _ids(choice.get("token_ids"))
    logprobs = _logprobs(choice, completion) if completion else None
    message = choice.get("message") or {"role": "assistant", "content": None}
    return CallTokens(prompt, completion, logprobs, message, choice.get("finish_reason"))
