"""What a remote OpenEnv server says about itself: health, metadata, schemas, tools, features.

:func:`describe` asks ``/health``, ``/metadata``, ``/schema``, ``/features`` (ours only) and
``tools/list`` on ``/mcp`` (tool servers only), each within a timeout and a size limit. A server
that does not answer, or answers something that is not what an OpenEnv server sends, raises
:class:`RemoteUnavailable` with a sentence saying which and why; the playground shows it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import httpx

from openenv.core.mcp import Tool
from openenv.core.serialization import load_untrusted
from openenv.hub.spaces import hub_token, space_url

TOKEN_ENV_VAR = "OPENENV_REMOTE_TOKEN"  # the remote's token; the page never asks for it
TIMEOUT_ENV_VAR = "OPENENV_REMOTE_TIMEOUT_S"
PROBE_TIMEOUT_S = 5.0
CALL_TIMEOUT_S = 30.0  # one reset or step on the remote
MAX_DESCRIPTION_BYTES = 8 * 1024 * 1024  # /metadata (a README), /schema, tools/list


class RemoteUnavailable(Exception):
    """The remote server cannot be used now; the message says why, for people."""


@dataclass(frozen=True)
class Remote:
    """Where a remote server is and how to reach it. ``token`` comes from the environment
    (``$OPENENV_REMOTE_TOKEN``, or the Hugging Face token for a Space), never from a page."""

    url: str
    name: str | None = None
    token: str | None = field(default=None, repr=False)
    timeout_s: float = CALL_TIMEOUT_S

    @classmethod
    def of(cls, target: str, name: str | None = None, token_env: str | None = None) -> Remote:
        """A remote from ``http(s)://...`` or a Space ``owner/name`` (as ``from_env`` reads it)."""
        target = target.strip()
        url = space_url(target)
        token = os.environ.get(token_env or TOKEN_ENV_VAR) or None
        if token is None and url.endswith(".hf.space"):
            token = hub_token()
        timeout = float(os.environ.get(TIMEOUT_ENV_VAR) or CALL_TIMEOUT_S)
        return cls(url=url, name=name, token=token, timeout_s=timeout)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


@dataclass(frozen=True)
class Description:
    """What :func:`describe` learned."""

    remote: Remote
    metadata: dict[str, Any]
    action_schema: dict[str, Any]
    observation_schema: dict[str, Any]
    state_schema: dict[str, Any]
    ours: bool = False  # built with this framework: it draws its own views
    reset_schema: dict[str, Any] | None = None  # ours: the env's reset options
    tools: list[Tool] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.remote.name or self.metadata.get("name") or _host(self.remote.url))


async def describe(remote: Remote, timeout_s: float = PROBE_TIMEOUT_S) -> Description:
    async with httpx.AsyncClient(
        base_url=remote.url, headers=remote.headers, timeout=timeout_s, follow_redirects=True
    ) as http:
        await _get(http, "/health")
        schema = await _get(http, "/schema")
        if not all(isinstance(schema.get(k), dict) for k in ("action", "observation")):
            raise RemoteUnavailable(
                f"{remote.url}/schema does not describe an action and an observation: is it an "
                "OpenEnv server?"
            )
        metadata = await _get(http, "/metadata", optional=True) or {}
        features = await _get(http, "/features", optional=True) or {}
        ours = features.get("server") == "openenv-playground" and "views" in (
            features.get("features") or []
        )
        tools = await _tools(http)
    reset = features.get("reset") if ours else None
    return Description(
        remote=remote,
        metadata=metadata,
        action_schema=schema["action"],
        observation_schema=schema["observation"],
        state_schema=schema.get("state") if isinstance(schema.get("state"), dict) else {},
        ours=ours,
        reset_schema=reset if isinstance(reset, dict) else None,
        tools=tools,
    )


async def _get(http: httpx.AsyncClient, path: str, optional: bool = False) -> Any:
    where = f"{http.base_url}".rstrip("/") + path
    try:
        async with http.stream("GET", path) as response:
            if response.status_code in (404, 405) and optional:
                return None
            if response.status_code in (401, 403):
                raise RemoteUnavailable(
                    f"{where} refused the request ({response.status_code}): set "
                    f"${TOKEN_ENV_VAR} (or $HF_TOKEN for a private Space) to its token"
                )
            if response.status_code != 200:
                raise RemoteUnavailable(f"{where} answered HTTP {response.status_code}")
            body = await _read(response, where)
    except httpx.TimeoutException:
        raise RemoteUnavailable(f"{where} did not answer within {http.timeout.read}s") from None
    except httpx.HTTPError as exc:
        raise RemoteUnavailable(f"cannot reach {where}: {exc or type(exc).__name__}") from None
    try:
        data = load_untrusted(body)
    except ValueError as exc:
        if optional:
            return None
        raise RemoteUnavailable(f"{where} did not answer JSON ({exc})") from None
    if not isinstance(data, dict):
        if optional:
            return None
        raise RemoteUnavailable(f"{where} answered {type(data).__name__}, not a JSON object")
    return data


async def _read(response: httpx.Response, where: str) -> bytes:
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_DESCRIPTION_BYTES:
            raise RemoteUnavailable(f"{where} sent more than {MAX_DESCRIPTION_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _tools(http: httpx.AsyncClient) -> list[Tool]:
    """The remote's tools (``tools/list`` on ``/mcp``), or none when it serves no tools."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    try:
        response = await http.post("/mcp", json=request)
    except httpx.HTTPError:
        return []
    if response.status_code != 200 or len(response.content) > MAX_DESCRIPTION_BYTES:
        return []
    try:
        listed = load_untrusted(response.content).get("result", {}).get("tools", [])
    except (ValueError, AttributeError):
        return []
    tools = []
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            schema = item.get("inputSchema") or item.get("input_schema") or {}
            tools.append(
                Tool(
                    name=item["name"],
                    description=str(item.get("description") or ""),
                    input_schema=schema if isinstance(schema, dict) else {},
                )
            )
    return tools


def _host(url: str) -> str:
    return httpx.URL(url).host or url
