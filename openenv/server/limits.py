"""How large a message or a request body anyone may send.

=============================  =====================================  ==========================
limit                          what it bounds                         past it
=============================  =====================================  ==========================
``OPENENV_MAX_MESSAGE_BYTES``  one ``/ws`` message; the body of       an error reply (``/ws``:
(default 1 MiB)                ``/reset``, ``/step`` and ``/mcp``     the session lives on;
                               (an action, reset options, a tool      HTTP: 413)
                               call are small)
4 x that                       one ``/ws`` message, as uvicorn        the connection is closed
                               reads it (``ws_max_size``)             (1009, message too big)
``OPENENV_MAX_BODY_BYTES``     any HTTP request body, the             413, before the app reads
(default 64 MiB)               playground's included (an episode      the rest
                               file for the Rewards panel is up to
                               32 MB of text)
=============================  =====================================  ==========================

Memory held for a visitor's messages is then bounded per connection, and connections are
bounded per client (:mod:`openenv.server.clients`).
"""

from __future__ import annotations

import os

from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from openenv.core.errors import OpenEnvError

MESSAGE_VAR = "OPENENV_MAX_MESSAGE_BYTES"
BODY_VAR = "OPENENV_MAX_BODY_BYTES"
DEFAULT_MESSAGE_BYTES = 2**20
DEFAULT_BODY_BYTES = 64 * 2**20


class TooLarge(OpenEnvError):
    """A message or a request body past its bound (:mod:`openenv.server.limits`)."""

    code = "TOO_LARGE"
    http_status = 413

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"{what} is larger than {_size(limit)}: send less")


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n % 2**20 == 0 else f"{n // 1024} KiB"


def _read(var: str, default: int) -> int:
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default
    value = int(raw)
    if value < 1024:
        raise ValueError(f"{var} must be at least 1024 (bytes), got {raw}")
    return value


def max_message_bytes() -> int:
    return _read(MESSAGE_VAR, DEFAULT_MESSAGE_BYTES)


def ws_max_size() -> int:
    """What uvicorn is told (``ws_max_size``): past this a message closes the connection."""
    return 4 * max_message_bytes()


def max_body_bytes() -> int:
    return _read(BODY_VAR, DEFAULT_BODY_BYTES)


async def read_body(request: Request, what: str, limit: int | None = None) -> bytes:
    """The request's body, refused (TooLarge) once it passes ``limit`` (default: the message
    limit), without reading the rest."""
    limit = max_message_bytes() if limit is None else limit
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(what, limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(what, limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def guard_body(scope: Scope, receive: Receive, send: Send, app: object) -> None:
    """Run the ASGI ``app`` for an HTTP request whose body may be at most ``max_body_bytes()``:
    a larger one is answered 413 (as soon as its length is declared or read past the bound)."""
    limit = max_body_bytes()
    declared = dict(scope.get("headers") or ()).get(b"content-length", b"")
    if declared.isdigit() and int(declared) > limit:
        await _too_large(send, limit)
        return
    started = False
    received = 0

    async def receiving() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise TooLarge("the request body", limit)
        return message

    async def sending(message: Message) -> None:
        nonlocal started
        started = started or message["type"] == "http.response.start"
        await send(message)

    try:
        await app(scope, receiving, sending)  # type: ignore[operator]
    except TooLarge:
        if started:
            raise
        await _too_large(send, limit)


async def _too_large(send: Send, limit: int) -> None:
    body = TooLarge("the request body", limit).message.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
