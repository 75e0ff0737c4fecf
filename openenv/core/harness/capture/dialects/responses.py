"""OpenAI Responses (``POST /v1/responses``), as codex speaks it: ``input`` items and
``instructions`` in, ``output`` items (messages and function calls) and typed stream events out."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

from openenv.core.harness.capture.dialects.base import (
    ChatReply,
    Dialect,
    DialectCall,
    DialectError,
    StreamWriter,
    sse_event,
    text_of,
)


def _tools(tools: list[Any]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        if isinstance(tool, dict) and tool.get("type") == "function" and tool.get("name"):
            fn = {k: tool[k] for k in ("name", "description", "parameters") if k in tool}
            out.append({"type": "function", "function": fn})
    return out  # built-in tools (web_search, ...) have no chat equivalent and are not offered


def _messages(items: list[Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            raise DialectError("every 'input' item must be an object")
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role", "user")
            role = "system" if role == "developer" else role
            messages.append({"role": role, "content": text_of(item.get("content"))})
        elif kind == "function_call":
            call = {
                "id": item.get("call_id") or item.get("id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments") or "{}"},
            }
            last = messages[-1] if messages else None
            if last and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": item.get("call_id"),
                    "content": output if isinstance(output, str) else text_of(output),
                }
            )
        # reasoning items carry no text the engine can take back; they are skipped
    return messages


class ResponsesDialect(Dialect):
    """``POST /v1/responses``."""

    name = "responses"

    def to_chat(self, body: dict[str, Any], *, path_model: str | None = None) -> DialectCall:
        raw = body.get("input")
        if isinstance(raw, str):
            items: list[Any] = [{"type": "message", "role": "user", "content": raw}]
        elif isinstance(raw, list):
            items = raw
        else:
            raise DialectError("'input' is required: a string or a list of items")
        messages = _messages(items)
        if body.get("instructions"):
            messages.insert(0, {"role": "system", "content": str(body["instructions"])})
        chat: dict[str, Any] = {"model": body.get("model"), "messages": messages}
        if _tools(body.get("tools") or []):
            chat["tools"] = _tools(body["tools"])
        if body.get("max_output_tokens"):
            chat["max_tokens"] = body["max_output_tokens"]
        for key in ("temperature", "top_p", "parallel_tool_calls"):
            if body.get(key) is not None:
                chat[key] = body[key]
        choice = body.get("tool_choice")
        if isinstance(choice, str):
            chat["tool_choice"] = choice
        elif isinstance(choice, dict) and choice.get("type") == "function":
            chat["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
        return DialectCall(chat, bool(body.get("stream")), str(body.get("model") or ""))

    def reply(self, reply: ChatReply, call: DialectCall) -> dict[str, Any]:
        return _ResponsesWriter(call).response(reply, done=True)

    def writer(self, call: DialectCall) -> StreamWriter:
        return _ResponsesWriter(call)


def _message_item(item_id: str, text: str, status: str = "completed") -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}]
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": content if status == "completed" else [],
    }


def _call_item(call: dict[str, Any]) -> dict[str, Any]:
    fn = call.get("function") or {}
    return {
        "type": "function_call",
        "id": f"fc_{uuid.uuid4().hex}",
        "call_id": call.get("id"),
        "name": fn.get("name"),
        "arguments": fn.get("arguments") or "{}",
        "status": "completed",
    }


class _ResponsesWriter(StreamWriter):
    def __init__(self, call: DialectCall) -> None:
        self.call = call
        self.id = f"resp_{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.message_id = f"msg_{uuid.uuid4().hex}"
        self.seq = 0
        self.texting = False

    def response(self, reply: ChatReply | None, *, done: bool) -> dict[str, Any]:
        truncated = done and reply is not None and reply.finish_reason == "length"
        output: list[dict[str, Any]] = []
        if done and reply is not None:
            if reply.content:
                output.append(_message_item(self.message_id, reply.content))
            output += [_call_item(c) for c in reply.tool_calls]
        usage = None
        if done and reply is not None:
            usage = {
                "input_tokens": reply.prompt_tokens,
                "output_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            }
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created,
            "model": self.call.model,
            "status": ("incomplete" if truncated else "completed") if done else "in_progress",
            "output": output,
            "incomplete_details": {"reason": "max_output_tokens"} if truncated else None,
            "usage": usage,
        }

    def _event(self, kind: str, **data: Any) -> str:
        self.seq += 1
        return sse_event({"type": kind, "sequence_number": self.seq - 1, **data}, kind)

    def open(self) -> Iterator[str]:
        started = self.response(None, done=False)
        yield self._event("response.created", response=started)
        yield self._event("response.in_progress", response=started)

    def _text_ids(self) -> dict[str, Any]:
        return {"item_id": self.message_id, "output_index": 0, "content_index": 0}

    def text(self, delta: str) -> Iterator[str]:
        if not self.texting:
            self.texting = True
            item = _message_item(self.message_id, "", "in_progress")
            part = {"type": "output_text", "text": "", "annotations": []}
            yield self._event("response.output_item.added", output_index=0, item=item)
            yield self._event("response.content_part.added", part=part, **self._text_ids())
        yield self._event("response.output_text.delta", delta=delta, **self._text_ids())

    def finish(self, reply: ChatReply) -> Iterator[str]:
        final = self.response(reply, done=True)
        index = 0
        if self.texting:
            item = final["output"][0]
            text = item["content"][0]["text"]
            yield self._event("response.output_text.done", text=text, **self._text_ids())
            yield self._event(
                "response.content_part.done", part=item["content"][0], **self._text_ids()
            )
            yield self._event("response.output_item.done", output_index=0, item=item)
            index = 1
        for item in final["output"][index:]:
            ids = {"item_id": item["id"], "output_index": index}
            yield self._event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            yield self._event(
                "response.function_call_arguments.delta", delta=item["arguments"], **ids
            )
            yield self._event(
                "response.function_call_arguments.done", arguments=item["arguments"], **ids
            )
            yield self._event("response.output_item.done", output_index=index, item=item)
            index += 1
        kind = "response.incomplete" if final["status"] == "incomplete" else "response.completed"
        yield self._event(kind, response=final)
