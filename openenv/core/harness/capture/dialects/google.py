"""Google generateContent (``POST /v1beta/models/{model}:generateContent`` and
``:streamGenerateContent``), as gemini-cli speaks it: ``contents`` of parts (text, functionCall,
functionResponse) in, ``candidates`` out; streamed as whole responses per SSE event."""

from __future__ import annotations

import json
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
)

_FINISH = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS"}


def _call_id(name: str, turn: int, index: int) -> str:
    # generateContent has no call ids; a stable one per position keeps message prefixes equal.
    return f"call_{turn}_{index}_{name}"


def _parts_text(parts: list[dict[str, Any]]) -> str:
    return "".join(str(p["text"]) for p in parts if "text" in p and not p.get("thought"))


def _messages(contents: list[Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    pending: list[str] = []  # ids of the last model turn's calls, answered in order
    for turn, content in enumerate(contents):
        if not isinstance(content, dict) or not isinstance(content.get("parts", []), list):
            raise DialectError("every item of 'contents' must be an object with a 'parts' list")
        parts = [p for p in content.get("parts", []) if isinstance(p, dict)]
        if content.get("role") == "model":
            calls = [
                {
                    "id": _call_id(str(p["functionCall"].get("name")), turn, i),
                    "type": "function",
                    "function": {
                        "name": p["functionCall"].get("name"),
                        "arguments": json.dumps(p["functionCall"].get("args") or {}),
                    },
                }
                for i, p in enumerate(parts)
                if isinstance(p.get("functionCall"), dict)
            ]
            message: dict[str, Any] = {"role": "assistant", "content": _parts_text(parts) or None}
            if calls:
                message["tool_calls"] = calls
            pending = [str(c["id"]) for c in calls]
            messages.append(message)
            continue
        for part in parts:
            if isinstance(part.get("functionResponse"), dict):
                answer = part["functionResponse"]
                call_id = pending.pop(0) if pending else f"call_{answer.get('name')}"
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call_id,
                        "content": json.dumps(answer.get("response", {})),
                    }
                )
        text = _parts_text(parts)
        if text:
            messages.append({"role": "user", "content": text})
    return messages


class GoogleDialect(Dialect):
    """``POST /v1beta/models/{model}:generateContent`` / ``:streamGenerateContent``."""

    name = "generateContent"

    def to_chat(self, body: dict[str, Any], *, path_model: str | None = None) -> DialectCall:
        messages = _messages(require(body, "contents", list))
        system = body.get("systemInstruction") or body.get("system_instruction")
        if isinstance(system, dict):
            text = _parts_text([p for p in system.get("parts", []) if isinstance(p, dict)])
            if text:
                messages.insert(0, {"role": "system", "content": text})
        chat: dict[str, Any] = {"model": path_model, "messages": messages}
        tools = [
            {
                "type": "function",
                "function": {
                    "name": d["name"],
                    "description": d.get("description", ""),
                    "parameters": d.get("parameters") or d.get("parametersJsonSchema") or {},
                },
            }
            for t in body.get("tools") or []
            if isinstance(t, dict)
            for d in t.get("functionDeclarations") or []
            if isinstance(d, dict) and d.get("name")
        ]
        if tools:
            chat["tools"] = tools
        config = body.get("generationConfig") or {}
        if config.get("maxOutputTokens"):
            chat["max_tokens"] = config["maxOutputTokens"]
        for src, dst in (
            ("temperature", "temperature"),
            ("topP", "top_p"),
            ("stopSequences", "stop"),
        ):
            if config.get(src) is not None:
                chat[dst] = config[src]
        calling = ((body.get("toolConfig") or {}).get("functionCallingConfig")) or {}
        mode = str(calling.get("mode", "")).upper()
        names = calling.get("allowedFunctionNames") or []
        if mode == "ANY" and len(names) == 1:
            chat["tool_choice"] = {"type": "function", "function": {"name": names[0]}}
        elif mode in ("ANY", "NONE", "AUTO"):
            chat["tool_choice"] = {"ANY": "required", "NONE": "none", "AUTO": "auto"}[mode]
        # ``stream`` is decided by the route (``:streamGenerateContent``), set by the server.
        return DialectCall(chat, False, str(path_model or ""))

    def reply(self, reply: ChatReply, call: DialectCall) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        if reply.content:
            parts.append({"text": reply.content})
        for tool_call in reply.tool_calls:
            fn = tool_call.get("function") or {}
            parts.append(
                {
                    "functionCall": {
                        "name": fn.get("name"),
                        "args": arguments_object(fn.get("arguments")),
                    }
                }
            )
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": parts or [{"text": ""}]},
                    "finishReason": _FINISH.get(reply.finish_reason or "stop", "STOP"),
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": reply.prompt_tokens,
                "candidatesTokenCount": reply.completion_tokens,
                "totalTokenCount": reply.prompt_tokens + reply.completion_tokens,
            },
            "modelVersion": call.model,
        }

    def writer(self, call: DialectCall) -> StreamWriter:
        return _GoogleWriter(self, call)

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = {
            400: "INVALID_ARGUMENT",
            401: "UNAUTHENTICATED",
            404: "NOT_FOUND",
            413: "INVALID_ARGUMENT",
        }.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": kind}}


class _GoogleWriter(StreamWriter):
    def __init__(self, dialect: GoogleDialect, call: DialectCall) -> None:
        self.dialect, self.call = dialect, call

    def open(self) -> Iterator[str]:
        return iter(())

    def text(self, delta: str) -> Iterator[str]:
        content = {"role": "model", "parts": [{"text": delta}]}
        yield sse_event(
            {"candidates": [{"content": content, "index": 0}], "modelVersion": self.call.model}
        )

    def finish(self, reply: ChatReply) -> Iterator[str]:
        # The text went out already; the last event carries the calls, the reason and usage.
        rest = ChatReply(
            None,
            reply.tool_calls,
            reply.finish_reason,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.raw,
        )
        yield sse_event(self.dialect.reply(rest, self.call))
