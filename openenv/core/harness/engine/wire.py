"""vLLM's OpenAI-compatible response format for a :class:`Generation`, whole or as SSE chunks.

As vLLM with ``--return-tokens-as-token-ids``: ``prompt_token_ids`` at the top level and
``token_ids`` on each choice when the request sets ``return_token_ids``; ``logprobs.content[]``
entries whose ``token`` reads ``token_id:<id>``, with ``top_logprobs`` alternatives.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from openenv.core.harness.engine.core import ChatRequest, Generation
from openenv.core.harness.engine.model import TokenStep

TokenName = Callable[[int], str]


def _entry(token_id: int, logprob: float, name: TokenName) -> dict[str, Any]:
    text = name(token_id)
    return {"token": text, "logprob": logprob, "bytes": list(text.encode("utf-8"))}


def logprob_entry(step: TokenStep, name: TokenName) -> dict[str, Any]:
    """One ``logprobs.content[]`` entry with its alternatives."""
    entry = _entry(step.token_id, step.logprob, name)
    entry["top_logprobs"] = [_entry(t, lp, name) for t, lp in step.top]
    return entry


def _usage(gen: Generation) -> dict[str, int]:
    n_prompt, n_out = len(gen.prompt_ids), len(gen.steps)
    return {"prompt_tokens": n_prompt, "completion_tokens": n_out, "total_tokens": n_prompt + n_out}


def completion_body(
    gen: Generation, request: ChatRequest, model: str, name: TokenName
) -> dict[str, Any]:
    """The whole (non-streaming) chat completion."""
    message: dict[str, Any] = {"role": "assistant", "content": gen.content}
    if gen.tool_calls:
        message["tool_calls"] = gen.tool_calls
    choice: dict[str, Any] = {
        "index": 0,
        "message": message,
        "finish_reason": gen.finish_reason,
        "stop_reason": None,
        "logprobs": None,
    }
    if request.logprobs:
        choice["logprobs"] = {"content": [logprob_entry(s, name) for s in gen.steps]}
    if request.return_token_ids:
        choice["token_ids"] = gen.completion_ids
    body: dict[str, Any] = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": _usage(gen),
        "prompt_logprobs": None,
    }
    if request.return_token_ids:
        body["prompt_token_ids"] = gen.prompt_ids
    return body


def completion_chunks(
    gen: Generation,
    request: ChatRequest,
    model: str,
    name: TokenName,
    decode: Callable[[list[int]], str],
) -> Iterator[dict[str, Any]]:
    """The same completion as streaming chunks: role, one chunk per token, tool calls, finish."""
    head = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], **choice: Any) -> dict[str, Any]:
        return {
            **head,
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": None, **choice}
            ],
        }

    first = chunk({"role": "assistant", "content": ""})
    if request.return_token_ids:
        first["prompt_token_ids"] = gen.prompt_ids
    yield first
    stream_text, shown = not gen.tool_calls, ""
    for n, step in enumerate(gen.steps):
        piece = ""
        if stream_text:  # decode the prefix: one token may hold part of a character
            text = decode([s.token_id for s in gen.steps[: n + 1]])
            piece, shown = (text[len(shown) :], text) if text.startswith(shown) else ("", shown)
        extra: dict[str, Any] = {}
        if request.logprobs:
            extra["logprobs"] = {"content": [logprob_entry(step, name)]}
        if request.return_token_ids:
            extra["token_ids"] = [step.token_id]
        yield chunk({"content": piece}, **extra)
    if gen.tool_calls:
        calls = [{"index": i, **c} for i, c in enumerate(gen.tool_calls)]
        delta: dict[str, Any] = {"tool_calls": calls}
        if gen.content:
            delta["content"] = gen.content
        yield chunk(delta)
    yield chunk({}, finish_reason=gen.finish_reason, stop_reason=None)
    if (request.stream_options or {}).get("include_usage"):
        yield {**head, "choices": [], "usage": _usage(gen)}


def sse(events: Iterator[dict[str, Any]]) -> Iterator[str]:
    """Server-sent events for chunks, closed by ``data: [DONE]``."""
    for event in events:
        yield f"data: {json.dumps(event)}\n\n"
    yield "data: [DONE]\n\n"
