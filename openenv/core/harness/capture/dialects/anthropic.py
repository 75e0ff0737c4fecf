"""Anthropic Messages (``POST /v1/messages``), as claude-code speaks it: content blocks
(text, tool_use, tool_result) in, a message of blocks and named stream events out."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from openenv.core.harness.capture.dialects.base import (
    ChatReply,
    Dialect,
    DialectCall,
    DialectError,
    StreamWriter,
    arguments_object,
    require,
    sse_event,
    text_of,
)

_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    raise DialectError("message 'content' must be a string or a list of blocks")


def _user(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in blocks:
        if block.get("type") == "tool_result":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": block.get("tool_use_id"),
                    "content": text_of(block.get("content")),
                }
            )
    text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    if text or not out:
        out.append({"role": "user", "content": text})
    return out


def _assistant(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    calls = [
        {
            "id": b.get("id"),
            "type": "function",
            "function": {"name": b.get("name"), "arguments": json.dumps(b.get("input") or {})},
        }
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    return message


class AnthropicDialect(Dialect):
    """``POST /v1/messages``."""

    name = "messages"

    def to_chat(self, body: dict[str, Any], *, path_model: str | None = None) -> DialectCall:
        messages: list[dict[str, Any]] = []
        system = text_of(body.get("system"))
        if system:
            messages.append({"role": "system", "content": system})
        for message in require(body, "messages", list):
            if not isinstance(message, dict):
                raise DialectError("every message must be an object")
            blocks = _blocks(message.get("content"))
            if message.get("role") == "assistant":
                messages.append(_assistant(blocks))
            else:
                messages.extend(_user(blocks))
        chat: dict[str, Any] = {"model": body.get("model"), "messages": messages}
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description", ""),
                    "parameters": t.get("input_schema", {}),
                },
            }
            for t in body.get("tools") or []
            if isinstance(t, dict) and t.get("name")
        ]
        if tools:
            chat["tools"] = tools
        if body.get("max_tokens"):
            chat["max_tokens"] = body["max_tokens"]
        for key in ("temperature", "top_p"):
            if body.get(key) is not None:
                chat[key] = body[key]
        if body.get("stop_sequences"):
            chat["stop"] = list(body["stop_sequences"])
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            kind = choice.get("type")
            if kind == "tool":
                chat["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
            elif kind in ("auto", "any", "none"):
                chat["tool_choice"] = {"any": "required"}.get(kind, kind)
            if choice.get("disable_parallel_tool_use"):
                chat["parallel_tool_calls"] = False
        return DialectCall(chat, bool(body.get("stream")), str(body.get("model") or ""))

    def _content(self, reply: ChatReply) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        if reply.content:
            content.append({"type": "text", "text": reply.content})
        for call in reply.tool_calls:
            fn = call.get("function") or {}
            content.append(
                {
                    "type": "tool_use",
                    "id": call.get("id") or f"toolu_{uuid.uuid4().hex}",
                    "name": fn.get("name"),
                    "input": arguments_object(fn.get("arguments")),
                }
            )
        return content

    def _message(self, reply: ChatReply, call: DialectCall, content: list[Any]) -> dict[str, Any]:
        return {
            "id": f"msg_{uuid.uuid4().hex}",
            "type": "message",
            "role": "assistant",
            "model": call.model or reply.raw.get("model"),
            "content": content,
            "stop_reason": _STOP.get(reply.finish_reason or "stop", "end_turn"),
            "stop_sequence": None,
            "usage": {
                "input_tokens": reply.prompt_tokens,
                "output_tokens": reply.completion_tokens,
            },
        }

    def reply(self, reply: ChatReply, call: DialectCall) -> dict[str, Any]:
        return self._message(reply, call, self._content(reply))

    def writer(self, call: DialectCall) -> StreamWriter:
        return _MessagesWriter(self, call)

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = {
            400: "invalid_request_error",
            401: "authentication_error",
            404: "not_found_error",
            413: "request_too_large",
        }.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}


class _MessagesWriter(StreamWriter):
    def __init__(self, dialect: AnthropicDialect, call: DialectCall) -> None:
        self.dialect, self.call = dialect, call
        self.texting = False

    def open(self) -> Iterator[str]:
        empty = ChatReply(None, [], None, 0, 0, {})
        start = {**self.dialect._message(empty, self.call, []), "stop_reason": None}
        yield sse_event({"type": "message_start", "message": start}, "message_start")

    def text(self, delta: str) -> Iterator[str]:
        if not self.texting:
            self.texting = True
            opening = {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
            yield sse_event(opening, "content_block_start")
        event = {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": delta},
        }
        yield sse_event(event, "content_block_delta")

    def finish(self, reply: ChatReply) -> Iterator[str]:
        index = 0
        if self.texting:
            yield sse_event({"type": "content_block_stop", "index": 0}, "content_block_stop")
            index = 1
        for block in self.dialect._content(reply):
            if block["type"] != "tool_use":
                continue
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            yield sse_event(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {**block, "input": {}},
                },
                "content_block_start",
            )
            yield sse_event(
                {"type": "content_block_delta", "index": index, "delta": delta},
                "content_block_delta",
            )
            yield sse_event({"type": "content_block_stop", "index": index}, "content_block_stop")
            index += 1
        stop = _STOP.get(reply.finish_reason or "stop", "end_turn")
        usage = {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens}
        yield sse_event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": usage,
            },
            "message_delta",
        )
        yield sse_event({"type": "message_stop"}, "message_stop")
