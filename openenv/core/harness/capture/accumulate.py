"""Rebuild one chat completion from streamed chunks: text, tool calls (sent in fragments by
index), token ids and logprobs per chunk, the prompt ids from the first chunk (vLLM puts them at
the top level, SGLang on the choice), the finish reason and usage."""

from __future__ import annotations

from typing import Any


class StreamAccumulator:
    """Feed chunks in order; ``body()`` is the equivalent non-streaming completion."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.token_ids: list[int] = []
        self.logprobs: list[dict[str, Any]] = []
        self.prompt_ids: list[int] | None = None
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None
        self.meta: dict[str, Any] = {}

    def feed(self, chunk: dict[str, Any]) -> str:
        """Take one chunk; returns the text it adds (to relay at once)."""
        self.meta = self.meta or {k: chunk.get(k) for k in ("id", "model", "created")}
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        if self.prompt_ids is None and isinstance(chunk.get("prompt_token_ids"), list):
            self.prompt_ids = chunk["prompt_token_ids"]
        text = ""
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            if self.prompt_ids is None and isinstance(choice.get("prompt_token_ids"), list):
                self.prompt_ids = choice["prompt_token_ids"]
            delta = choice.get("delta") or {}
            text += delta.get("content") or ""
            for fragment in delta.get("tool_calls") or []:
                self._call(fragment)
            self.token_ids += choice.get("token_ids") or []
            self.logprobs += (choice.get("logprobs") or {}).get("content") or []
            self.finish = choice.get("finish_reason") or self.finish
        self.text.append(text)
        return text

    def _call(self, fragment: dict[str, Any]) -> None:
        call = self.calls.setdefault(
            int(fragment.get("index", len(self.calls))),
            {"id": None, "type": "function", "function": {"name": "", "arguments": ""}},
        )
        call["id"] = call["id"] or fragment.get("id")
        fn = fragment.get("function") or {}
        call["function"]["name"] += fn.get("name") or ""
        call["function"]["arguments"] += fn.get("arguments") or ""

    def body(self) -> dict[str, Any]:
        """The completion these chunks add up to (chat-completions shape, vLLM's fields)."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text) or None}
        if self.calls:
            message["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        choice: dict[str, Any] = {
            "index": 0,
            "message": message,
            "finish_reason": self.finish,
            "logprobs": {"content": self.logprobs} if self.logprobs else None,
        }
        if self.token_ids:
            choice["token_ids"] = self.token_ids
        body: dict[str, Any] = {**self.meta, "object": "chat.completion", "choices": [choice]}
        if self.prompt_ids is not None:
            body["prompt_token_ids"] = self.prompt_ids
        usage = self.usage or {}
        body["usage"] = {
            "prompt_tokens": usage.get("prompt_tokens") or len(self.prompt_ids or []),
            "completion_tokens": usage.get("completion_tokens") or len(self.token_ids),
        }
        return body
