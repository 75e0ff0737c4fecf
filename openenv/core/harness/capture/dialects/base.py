"""What every wire dialect provides: its request as one chat body, and a chat reply replayed in
its own shape, whole or streamed. A new dialect is a new module, never a branch in the proxy."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


class DialectError(ValueError):
    """A request body this dialect cannot read (answered as 400 with this message)."""


@dataclass
class DialectCall:
    """One agent request, normalised: the chat body for upstream and how to answer."""

    chat: dict[str, Any]
    stream: bool
    model: str
    options: dict[str, Any] = field(default_factory=dict)  # what the agent asked to see back


@dataclass
class ChatReply:
    """The upstream answer reduced to what every dialect replays."""

    content: str | None
    tool_calls: list[dict[str, Any]]
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    raw: dict[str, Any]

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> ChatReply:
        """Read a chat-completions body."""
        choice = (body.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        usage = body.get("usage") or {}
        return cls(
            content=message.get("content"),
            tool_calls=list(message.get("tool_calls") or []),
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            raw=body,
        )


def sse_event(data: dict[str, Any], event: str | None = None) -> str:
    """One server-sent event."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def arguments_object(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as an object (dialects other than chat carry objects, not strings)."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"_raw": str(raw)}
    return value if isinstance(value, dict) else {"_value": value}


def text_of(content: Any) -> str:
    """Plain text of a string or a list of typed text parts (images and the like are dropped)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
        )
    return str(content)


def require(body: Any, key: str, kind: type) -> Any:
    """``body[key]`` of type ``kind``, or a :class:`DialectError` naming the field."""
    if not isinstance(body, dict) or not isinstance(body.get(key), kind):
        raise DialectError(f"'{key}' is required and must be a {kind.__name__}")
    return body[key]


class StreamWriter(ABC):
    """A dialect's server-sent events, written while the upstream answer arrives: ``open`` at
    once, ``text`` per piece of text, ``finish`` with the whole reply (tool calls, finish
    reason and usage are only known at the end)."""

    @abstractmethod
    def open(self) -> Iterator[str]:
        """Events before any text."""

    @abstractmethod
    def text(self, delta: str) -> Iterator[str]:
        """Events for one piece of the reply's text."""

    @abstractmethod
    def finish(self, reply: ChatReply) -> Iterator[str]:
        """Events after the text: tool calls, the finish reason, usage, the end."""


class Dialect(ABC):
    """One wire dialect an agent may speak."""

    name: str

    @abstractmethod
    def to_chat(self, body: dict[str, Any], *, path_model: str | None = None) -> DialectCall:
        """The agent's request as one chat-completions body."""

    @abstractmethod
    def reply(self, reply: ChatReply, call: DialectCall) -> dict[str, Any]:
        """The whole answer in this dialect."""

    @abstractmethod
    def writer(self, call: DialectCall) -> StreamWriter:
        """A writer of this dialect's stream for ``call``."""

    def stream(self, reply: ChatReply, call: DialectCall) -> Iterator[str]:
        """A whole answer as this dialect's server-sent events."""
        writer = self.writer(call)
        yield from writer.open()
        if reply.content:
            yield from writer.text(reply.content)
        yield from writer.finish(reply)

    def error(self, status: int, message: str) -> dict[str, Any]:
        """An error body in this dialect (OpenAI's shape unless overridden)."""
        return {"error": {"message": message, "type": "invalid_request_error", "code": status}}
