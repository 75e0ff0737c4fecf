"""A model's reply in one provider-neutral shape: its text and its tool calls.

``openenv.core.llm_client`` is the reference's import path (``openenv`` 0.10) for
:class:`LLMResponse` and :class:`ToolCall`, which white-box harness code passes around (a
:class:`~openenv.core.harness.ModelStepResult` holds one). To call a model, use
:mod:`openenv.core.llm` (the operator's endpoint) or the capture proxy; the reference's
``OpenAIClient``/``AnthropicClient`` are not part of this module.

Tool-call ``args`` are a parsed JSON object; on the OpenAI wire they are a JSON *string*
(``function.arguments``), which :meth:`LLMResponse.to_message_dict` writes and
:meth:`LLMResponse.from_message` reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolCall:
    """One tool call of a reply: the provider's call id, the tool's name, its arguments."""

    id: str
    name: str
    args: dict[str, Any]


@dataclass
class LLMResponse:
    """A reply: its text (``""`` when it only calls tools) and its tool calls, in order."""

    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)

    def to_message_dict(self) -> dict[str, Any]:
        """The reply as an OpenAI chat assistant message (arguments as a JSON string)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.args)},
                }
                for call in self.tool_calls
            ]
        return message

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> LLMResponse:
        """Read an OpenAI chat assistant message. Arguments that are not a JSON object raise
        ``ValueError`` naming the call; a call without an id gets ``call_<n>``."""
        content = message.get("content")
        calls = []
        for n, raw in enumerate(message.get("tool_calls") or []):
            function = raw.get("function") or {}
            name = function.get("name")
            if not isinstance(name, str) or not name:
                raise ValueError(f"tool call {n} has no function name")
            args = function.get("arguments") or {}
            if isinstance(args, str):
                try:
                    args = json.loads(args) if args.strip() else {}
                except ValueError:
                    raise ValueError(f"tool call {n} ({name}): arguments are not JSON") from None
            if not isinstance(args, dict):
                raise ValueError(f"tool call {n} ({name}): arguments must be a JSON object")
            calls.append(ToolCall(id=str(raw.get("id") or f"call_{n}"), name=name, args=args))
        return cls(content=content if isinstance(content, str) else "", tool_calls=calls)
