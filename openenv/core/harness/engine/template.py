"""The test engine's chat template: messages (and tools) to prompt text, completions back to
text and tool calls. One template, so the prompt ids the engine returns are its own tokenisation."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts; only text parts reach this engine
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def render_tool_call(name: str, arguments: Any) -> str:
    """One tool call as the engine writes it in a completion."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def _message_text(message: dict[str, Any]) -> str:
    text = _content_text(message.get("content"))
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        text += render_tool_call(str(fn.get("name", "")), fn.get("arguments", {}))
    return text


def render_prompt(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    """The prompt text for ``messages``, ending where the assistant's reply begins."""
    parts = []
    if tools:
        listing = json.dumps([t.get("function", t) for t in tools], sort_keys=True)
        parts.append(f"<|im_start|>tools\n{listing}<|im_end|>\n")
    for message in messages:
        parts.append(
            f"<|im_start|>{message.get('role', 'user')}\n{_message_text(message)}<|im_end|>\n"
        )
    parts.append("<|im_start|>assistant\n")
    return "".join(parts)


def parse_completion(text: str) -> tuple[str | None, list[dict[str, Any]]]:
    """Split a completion into its text and its well-formed tool calls (OpenAI shape)."""
    calls = []
    for match in _TOOL_CALL.finditer(text):
        try:
            body = json.loads(match.group(1))
            name = str(body["name"])
        except (ValueError, KeyError, TypeError):
            continue
        arguments = body.get("arguments", {})
        calls.append(
            {
                "id": f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        )
    rest = _TOOL_CALL.sub("", text).strip() if calls else text
    return (rest or None) if calls else text, calls
