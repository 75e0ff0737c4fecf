"""The one language-model endpoint every env shares: a judge, a simulated user, a teacher.

Envs that ask a model for something (an LLM judge's score, a simulated customer's next line, a
rubric grade) never hard-code a provider. They call :func:`llm_endpoint`, which reads one
operator setting shared by the whole server:

- ``OPENENV_LLM_URL``: an OpenAI-compatible API root (``http://host:8000/v1``); unset means no
  model is configured, and the env says so in its observation instead of inventing a score.
- ``OPENENV_LLM_MODEL``: the model name sent with each call (default ``default``).
- ``OPENENV_LLM_API_KEY``: the bearer key (default ``$OPENAI_API_KEY``); it stays in the
  server process and is never shown to a visitor or an agent.
- ``OPENENV_LLM_TIMEOUT_S``: seconds per call (default 60).

A role may point elsewhere: ``OPENENV_LLM_<ROLE>_URL`` / ``_MODEL`` / ``_API_KEY`` (``role="judge"``
reads ``OPENENV_LLM_JUDGE_URL`` first), so a judge and a simulated user can be different models.
Tests pass an :class:`LLMEndpoint` built by hand that points at a local test engine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import httpx

MAX_REPLY_BYTES = 1 << 20  # a reply larger than this is refused, not kept
NOT_CONFIGURED = (
    "no language model is configured for this server: set OPENENV_LLM_URL (and OPENENV_LLM_MODEL)"
    " to an OpenAI-compatible endpoint"
)


class LLMUnavailable(RuntimeError):
    """The endpoint is not configured, unreachable, or answered something unusable."""


@dataclass(frozen=True)
class LLMEndpoint:
    """An OpenAI-compatible chat endpoint (``POST {base_url}/chat/completions``)."""

    base_url: str
    model: str = "default"
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 60.0

    def _request(
        self,
        messages: list[dict[str, Any]],
        temperature: float,
        max_tokens: int | None,
        extra: dict[str, Any] | None,
    ) -> tuple[str, dict[str, Any], dict[str, str]]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
        }
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        body.update(extra or {})
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return f"{self.base_url.rstrip('/')}/chat/completions", body, headers

    def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The first choice's message (``{"role": "assistant", "content": ..., ...}``).

        Raises :class:`LLMUnavailable` with the reason when the call fails or the reply is not a
        chat completion.
        """
        url, body, headers = self._request(messages, temperature, max_tokens, extra)
        try:
            with httpx.Client(timeout=self.timeout_s) as client:
                response = client.post(url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise LLMUnavailable(f"{self.base_url}: {type(exc).__name__}: {exc}") from exc
        return _message_of(response, self.base_url)

    async def achat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """:meth:`chat` for async code."""
        url, body, headers = self._request(messages, temperature, max_tokens, extra)
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                response = await client.post(url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise LLMUnavailable(f"{self.base_url}: {type(exc).__name__}: {exc}") from exc
        return _message_of(response, self.base_url)

    def complete(self, prompt: str, *, system: str | None = None, **kwargs: Any) -> str:
        """The text of the reply to one user ``prompt`` (after an optional ``system`` line)."""
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        return str(self.chat(messages, **kwargs).get("content") or "")


def _message_of(response: httpx.Response, where: str) -> dict[str, Any]:
    if len(response.content) > MAX_REPLY_BYTES:
        raise LLMUnavailable(f"{where}: the reply is larger than {MAX_REPLY_BYTES} bytes")
    if response.status_code >= 400:
        raise LLMUnavailable(f"{where}: HTTP {response.status_code}: {response.text[:300]}")
    try:
        message = response.json()["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise LLMUnavailable(f"{where}: not a chat completion: {response.text[:300]}") from exc
    if not isinstance(message, dict):
        raise LLMUnavailable(f"{where}: not a chat completion: {response.text[:300]}")
    return message


def llm_endpoint(role: str | None = None) -> LLMEndpoint | None:
    """The operator's endpoint for ``role`` (``judge``, ``user``, ``teacher``...), or None.

    ``OPENENV_LLM_<ROLE>_*`` wins over ``OPENENV_LLM_*`` when set; None means nothing is
    configured, and the caller reports :data:`NOT_CONFIGURED` rather than a made-up answer.
    """

    def setting(name: str) -> str | None:
        if role:
            value = os.environ.get(f"OPENENV_LLM_{role.upper()}_{name}")
            if value:
                return value
        return os.environ.get(f"OPENENV_LLM_{name}") or None

    base_url = setting("URL")
    if not base_url:
        return None
    return LLMEndpoint(
        base_url=base_url,
        model=setting("MODEL") or "default",
        api_key=setting("API_KEY") or os.environ.get("OPENAI_API_KEY") or None,
        timeout_s=float(setting("TIMEOUT_S") or 60.0),
    )
