"""The one upstream call: an OpenAI chat-completions request asking for token ids and logprobs.

Every dialect arrives here as a chat body. The proxy's key for the endpoint is added here and only
here; it is never sent back to an agent. A 400 naming a known parameter fix is fixed, retried and
cached per model (see :mod:`openenv.core.harness.capture.fixes`).

``training_sampling`` (a training rollout's sampling policy, :mod:`.sampling`) is importable
from here too, where ``openenv`` 0.10 and TRL's harness worker look for it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from openenv.core.harness.capture.fixes import FIXES, apply_fixes, fix_for
from openenv.core.harness.capture.sampling import training_sampling as training_sampling

CAPTURE_FIELDS = ("logprobs", "top_logprobs", "return_token_ids")


class UpstreamError(RuntimeError):
    """The endpoint failed or refused a call; ``status`` is what the agent is told."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class UpstreamReply:
    """A chat completion (vLLM format where the engine is vLLM) and the fixes applied to get it."""

    body: dict[str, Any]
    fixes: list[str] = field(default_factory=list)


def _error_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:2000]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        return str(error.get("message") or error)[:2000]
    return str(error)[:2000]


class Upstream:
    """An OpenAI-compatible endpoint reached with the operator's key."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        auth_header: str = "Authorization",
        model: str | None = None,
        timeout: float = 600.0,
        max_connections: int = 256,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._headers = {}
        if api_key:
            value = f"Bearer {api_key}" if auth_header.lower() == "authorization" else api_key
            self._headers[auth_header] = value
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=64)
        self._client = httpx.AsyncClient(timeout=timeout, limits=limits, headers=self._headers)
        self.learnt: dict[str, list[str]] = {}  # model -> fixes, in the order learnt

    def __repr__(self) -> str:  # never shows the key
        return f"Upstream({self.base_url!r}, model={self.model!r})"

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()

    def prepare(
        self, chat: dict[str, Any], *, want_tokens: bool, stream: bool = False
    ) -> dict[str, Any]:
        """The body sent upstream: the proxy's model, capture fields when wanted."""
        body = {k: v for k, v in chat.items() if k not in ("stream", "stream_options")}
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        if self.model:
            body["model"] = self.model
        if want_tokens:
            body["logprobs"] = True
            body["return_token_ids"] = True
            if body.get("top_logprobs") is None:
                body["top_logprobs"] = 0  # vLLM fills logprobs.content only when this is set
        else:
            for key in CAPTURE_FIELDS:
                body.pop(key, None)
        return body

    async def complete(self, chat: dict[str, Any], *, want_tokens: bool = True) -> UpstreamReply:
        """One chat completion, applying learnt and newly named fixes."""
        body = self.prepare(chat, want_tokens=want_tokens)
        response, applied = await self._send(body, stream=False)
        try:
            return UpstreamReply(response.json(), applied)
        except ValueError as exc:
            raise UpstreamError(502, "endpoint answered 200 with a body that is not JSON") from exc

    async def stream(self, chat: dict[str, Any], *, want_tokens: bool = True) -> UpstreamStream:
        """A streamed chat completion, open once the endpoint has answered 200."""
        body = self.prepare(chat, want_tokens=want_tokens, stream=True)
        response, applied = await self._send(body, stream=True)
        return UpstreamStream(response, applied)

    async def _send(
        self, body: dict[str, Any], *, stream: bool
    ) -> tuple[httpx.Response, list[str]]:
        model = str(body.get("model", ""))
        applied = list(self.learnt.get(model, []))
        apply_fixes(body, applied)
        url = f"{self.base_url}/chat/completions"
        for _ in range(len(FIXES) + 1):
            try:
                request = self._client.build_request("POST", url, json=body)
                response = await self._client.send(request, stream=stream)
            except httpx.HTTPError as exc:
                raise UpstreamError(502, f"endpoint unreachable: {type(exc).__name__}") from exc
            if response.status_code == 200:
                return response, applied
            await response.aread()
            await response.aclose()
            message = _error_message(response)
            fix = fix_for(message, body) if response.status_code == 400 else None
            if fix is None or fix.name in applied:
                # The agent's key is not the endpoint's: an endpoint refusing the proxy is a 502.
                own = response.status_code < 500 and response.status_code not in (401, 403)
                status = response.status_code if own else 502
                raise UpstreamError(status, f"endpoint answered {response.status_code}: {message}")
            fix.apply(body)
            applied.append(fix.name)
            self.learnt.setdefault(model, []).append(fix.name)
        raise UpstreamError(502, "endpoint kept refusing after every known parameter fix")


class UpstreamStream:
    """An open streamed completion: its chunks, and the fixes applied to get it."""

    def __init__(self, response: httpx.Response, fixes: list[str]) -> None:
        self.response = response
        self.fixes = fixes

    async def chunks(self) -> AsyncIterator[dict[str, Any]]:
        """Each ``data:`` event as a dict, until ``[DONE]`` or the end of the stream."""
        async for line in self.response.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            try:
                chunk = json.loads(data)
            except ValueError:
                continue
            if isinstance(chunk, dict):
                yield chunk

    async def aclose(self) -> None:
        """Release the connection."""
        await self.response.aclose()
