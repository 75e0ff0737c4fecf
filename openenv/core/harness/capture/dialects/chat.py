"""OpenAI chat completions: already the upstream shape; replayed with the agent's own options."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

from openenv.core.harness.capture.dialects.base import (
    ChatReply,
    Dialect,
    DialectCall,
    StreamWriter,
    require,
    sse_event,
)

_CAPTURE_ONLY = ("prompt_token_ids", "prompt_logprobs")


class ChatDialect(Dialect):
    """``POST /v1/chat/completions``."""

    name = "chat"

    def to_chat(self, body: dict[str, Any], *, path_model: str | None = None) -> DialectCall:
        require(body, "messages", list)
        chat = dict(body)
        stream = bool(chat.pop("stream", False))
        chat.pop("stream_options", None)
        options = {
            "logprobs": bool(body.get("logprobs")),
            "token_ids": bool(body.get("return_token_ids")),
            "usage": bool((body.get("stream_options") or {}).get("include_usage")),
        }
        return DialectCall(chat, stream, str(body.get("model") or path_model or ""), options)

    def reply(self, reply: ChatReply, call: DialectCall) -> dict[str, Any]:
        asked = call.options
        body = {k: v for k, v in reply.raw.items() if k not in _CAPTURE_ONLY or asked["token_ids"]}
        body["model"] = call.model or body.get("model")
        choices = []
        for choice in body.get("choices") or []:
            choice = dict(choice)
            if not asked["token_ids"]:
                choice.pop("token_ids", None)
                choice.pop("prompt_token_ids", None)
            if not asked["logprobs"]:
                choice["logprobs"] = None
            choices.append(choice)
        body["choices"] = choices
        return body

    def writer(self, call: DialectCall) -> StreamWriter:
        return _ChatWriter(call)


class _ChatWriter(StreamWriter):
    def __init__(self, call: DialectCall) -> None:
        self.call = call
        self.head = {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": call.model,
        }

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return sse_event({**self.head, "choices": [choice]})

    def open(self) -> Iterator[str]:
        yield self._chunk({"role": "assistant", "content": ""})

    def text(self, delta: str) -> Iterator[str]:
        yield self._chunk({"content": delta})

    def finish(self, reply: ChatReply) -> Iterator[str]:
        if reply.tool_calls:
            calls = [{"index": i, **c} for i, c in enumerate(reply.tool_calls)]
            yield self._chunk({"tool_calls": calls})
        yield self._chunk({}, reply.finish_reason or "stop")
        if self.call.options.get("usage"):
            usage = {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            }
            yield sse_event({**self.head, "choices": [], "usage": usage})
        yield "data: [DONE]\n\n"
