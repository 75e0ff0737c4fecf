"""Probe an endpoint before serving: can rollouts against it be trained on, or only evaluated?

1. Tokens: one tiny chat call asking for ``return_token_ids`` and logprobs. Prompt ids, sampled
   ids and logprobs aligned to them make ``tokens``; logprobs alone ``logprobs``; else ``text``.
2. Processed or raw logprobs: the gap between the top two logprobs of the first position, asked
   at temperature 1 and 2. Processed logprobs are ``log_softmax(logits / T)``: the gap halves.
   Raw ones do not move. A raw endpoint is eval only unless ``OPENENV_ALLOW_RAW_LOGPROBS=1``.
   (The gap, not the values, is compared: data-parallel replicas may answer the two calls.)
A 400 naming a parameter fix (see :mod:`.fixes`) is applied and retried here as the proxy will,
and listed in the verdict's notes, so a hosted provider is reported [EVAL ONLY], not unreachable.

3. Tools (non-fatal): one call with a tool manifest, as a harness sends. A truncated answer is
   inconclusive, not a failure (reasoning models think before they call).
"""

from __future__ import annotations

import os
from typing import Any

import httpx

from openenv.core.harness.capture.fixes import BY_NAME, FIXES, fix_for
from openenv.core.harness.capture.level import ALLOW_RAW_ENV, CaptureLevel
from openenv.core.harness.capture.tokens import call_tokens

PROBE_MESSAGES = [{"role": "user", "content": "Reply with one word: hello."}]
TOOL = {
    "type": "function",
    "function": {
        "name": "run_command",
        "description": "Run a shell command and return its output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}
TOOL_MESSAGES = [{"role": "user", "content": "List the files here with the run_command tool."}]


class ProbeError(RuntimeError):
    """The endpoint could not be probed at all (unreachable, or no model to ask)."""


class _Endpoint:
    def __init__(self, base_url: str, api_key: str | None, auth_header: str, timeout: float):
        headers = {}
        if api_key:
            bearer = auth_header.lower() == "authorization"
            headers[auth_header] = f"Bearer {api_key}" if bearer else api_key
        self.base = base_url.rstrip("/")
        self.client = httpx.Client(headers=headers, timeout=timeout)
        self.fixes: list[str] = []

    def chat(self, body: dict[str, Any]) -> httpx.Response:
        """Post ``body``, applying the parameter fixes a 400 names (as the proxy will)."""
        body = dict(body)
        for _ in range(len(FIXES) + 1):
            try:
                reply = self.client.post(f"{self.base}/chat/completions", json=body)
            except httpx.HTTPError as exc:
                raise ProbeError(f"{self.base} unreachable: {type(exc).__name__}: {exc}") from exc
            fix = fix_for(_message(reply), body) if reply.status_code == 400 else None
            if fix is None:
                return reply
            fix.apply(body)
            if fix.name not in self.fixes:
                self.fixes.append(fix.name)
        return reply

    def first_model(self) -> str:
        try:
            reply = self.client.get(f"{self.base}/models")
            data = reply.json().get("data") if reply.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            data = None
        if not data or not isinstance(data[0], dict) or not data[0].get("id"):
            raise ProbeError(f"{self.base}/models lists no model: pass the model name")
        return str(data[0]["id"])


def _message(reply: httpx.Response) -> str:
    try:
        error = reply.json().get("error", {})
    except (ValueError, AttributeError):
        return reply.text[:2000]
    return str(error.get("message", error) if isinstance(error, dict) else error)[:2000]


def _top2_gap(body: dict[str, Any]) -> float | None:
    entries = ((body.get("choices") or [{}])[0].get("logprobs") or {}).get("content") or []
    top = entries[0].get("top_logprobs") if entries else None
    if not top or len(top) < 2:
        return None
    return float(top[0]["logprob"]) - float(top[1]["logprob"])


def _logprobs_mode(endpoint: _Endpoint, body: dict[str, Any], gap1: float | None) -> str:
    reply = endpoint.chat({**body, "temperature": 2.0})
    gap2 = _top2_gap(reply.json()) if reply.status_code == 200 else None
    if gap1 is None or gap2 is None or gap1 < 1e-4 or gap2 < 1e-6:
        return "unknown"
    ratio = gap1 / gap2
    if abs(ratio - 2.0) < 0.3:
        return "processed"
    return "raw" if abs(ratio - 1.0) < 0.15 else "unknown"


def _tools(endpoint: _Endpoint, model: str) -> tuple[str, str | None]:
    body = {"model": model, "messages": TOOL_MESSAGES, "tools": [TOOL], "max_tokens": 512}
    reply = endpoint.chat(body)
    if reply.status_code != 200:
        return "error", f"tool probe: endpoint answered {reply.status_code}: {reply.text[:300]}"
    choice = (reply.json().get("choices") or [{}])[0]
    if (choice.get("message") or {}).get("tool_calls"):
        return "ok", None
    if choice.get("finish_reason") == "length":
        return "inconclusive", "tool probe: the answer hit the token cap before any tool call"
    return "no_tool_call", "tool probe: the model answered without calling the offered tool"


def probe_capture_level(
    base_url: str,
    *,
    model: str | None = None,
    api_key: str | None = None,
    auth_header: str = "Authorization",
    timeout: float = 120.0,
    probe_tools: bool = True,
) -> CaptureLevel:
    """Measure what rollouts against ``base_url`` (an OpenAI ``/v1`` URL) can be used for."""
    endpoint = _Endpoint(base_url, api_key, auth_header, timeout)
    model = model or endpoint.first_model()
    body = {
        "model": model,
        "messages": PROBE_MESSAGES,
        "max_tokens": 4,
        "temperature": 1.0,
        "seed": 0,
        "logprobs": True,
        "top_logprobs": 2,
        "return_token_ids": True,
    }
    reply = endpoint.chat(body)
    level = CaptureLevel(model=model)
    if reply.status_code != 200:
        raise ProbeError(f"{base_url} answered {reply.status_code}: {reply.text[:300]}")
    else:
        tokens = call_tokens(reply.json())
        if tokens.prompt_ids and tokens.completion_ids and tokens.logprobs is not None:
            level.capture_level = "tokens"
            mode = _logprobs_mode(endpoint, body, _top2_gap(reply.json()))
            level.logprobs_mode = mode  # type: ignore[assignment]
        elif tokens.logprobs is not None or _top2_gap(reply.json()) is not None:
            level.capture_level = "logprobs"
            level.notes.append(
                "logprobs without token ids: start vLLM with --return-tokens-as-token-ids"
            )
        else:
            level.notes.append("no token ids and no logprobs")
    _decide(level)
    if probe_tools:
        level.tools, note = _tools(endpoint, model)  # type: ignore[assignment]
        if note:
            level.notes.append(note)
    endpoint.client.close()
    level.notes += [f"parameter fix {n}: {BY_NAME[n].effect}" for n in endpoint.fixes]
    return level


def _decide(level: CaptureLevel) -> None:
    if level.capture_level != "tokens":
        return
    if level.logprobs_mode == "processed":
        level.rollout_type = "train"
        return
    why = (
        "raw logprobs (before temperature): start vLLM with --logprobs-mode processed_logprobs"
        if level.logprobs_mode == "raw"
        else "could not tell processed from raw logprobs"
    )
    if os.environ.get(ALLOW_RAW_ENV) == "1":
        level.rollout_type = "train"
        level.raw_allowed_by_env = True
        level.notes.append(f"{why}; trained anyway because {ALLOW_RAW_ENV}=1")
    else:
        level.notes.append(f"{why}; eval only ({ALLOW_RAW_ENV}=1 overrides)")


def describe(level: CaptureLevel) -> str:
    """The probe's verdict as printed at startup."""
    lines = [
        f"{level.label} capture={level.capture_level} logprobs={level.logprobs_mode} "
        f"tools={level.tools} model={level.model}"
    ]
    lines += [f"  - {note}" for note in level.notes]
    return "\n".join(lines)
