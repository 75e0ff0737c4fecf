"""Security headers on every HTTP response of a server (and of the catalog).

The pages (the playground, the catalog, ``/docs``) load nothing from outside their server, so
the Content-Security-Policy says so: scripts, styles, images, fonts and connections from the
server itself (and ``data:``/``blob:`` images, the frames the stage draws); inline scripts and
``eval`` stay allowed because Gradio's page runs its components' code that way. Framing is
allowed to the server itself and to Hugging Face (``https://huggingface.co``,
``https://*.hf.space``), where a Space's page embeds its app; ``$OPENENV_FRAME_ANCESTORS`` adds
other origins (space-separated). ``X-Frame-Options`` is not sent: it cannot name several
origins, and ``frame-ancestors`` supersedes it in every current browser.

:func:`with_headers` wraps an ASGI ``send`` so the headers go on each response start; a
header the app set itself is left as it is.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

FRAME_ANCESTORS_VAR = "OPENENV_FRAME_ANCESTORS"
HUGGING_FACE = "https://huggingface.co https://*.hf.space"

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]


def content_security_policy(frame_ancestors: str | None = None) -> str:
    extra = (
        frame_ancestors if frame_ancestors is not None else os.environ.get(FRAME_ANCESTORS_VAR, "")
    )
    ancestors = " ".join(part for part in ("'self'", HUGGING_FACE, extra.strip()) if part)
    return "; ".join(
        (
            "default-src 'self'",
            "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            "media-src 'self' data: blob:",
            "connect-src 'self' ws: wss:",
            "worker-src 'self' blob:",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            f"frame-ancestors {ancestors}",
        )
    )


def security_headers() -> list[tuple[bytes, bytes]]:
    """The headers every response gets (read once per app)."""
    return [
        (b"content-security-policy", content_security_policy().encode("latin-1")),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
    ]


def with_headers(send: Send, headers: list[tuple[bytes, bytes]]) -> Send:
    """``send`` that adds ``headers`` to the response start, unless the app set them."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {key.lower() for key, _ in message.get("headers", ())}
            added = [(k, v) for k, v in headers if k not in present]
            if added:
                message = {**message, "headers": [*message.get("headers", ()), *added]}
        await send(message)

    return sending


def relative_redirects(send: Send, scope: MutableMapping[str, Any]) -> Send:
    """``send`` that makes a redirect to this server relative: a ``Location`` naming the host
    the request came with (Starlette's trailing-slash redirects build one from ``Host``) loses
    its scheme and host, so a forged ``Host`` is never echoed into a link."""
    host = b""
    for key, value in scope.get("headers") or ():
        if key.lower() == b"host":
            host = value.lower()

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = message.get("headers", ())
            fixed = [(k, _relative(v, host) if k.lower() == b"location" else v) for k, v in headers]
            if fixed != list(headers):
                message = {**message, "headers": fixed}
        await send(message)

    return sending


def _relative(location: bytes, host: bytes) -> bytes:
    for scheme in (b"http://", b"https://", b"ws://", b"wss://"):
        if location[: len(scheme)].lower() == scheme:
            rest = location[len(scheme) :]
            cut = min((i for i in (rest.find(c) for c in b"/?#") if i >= 0), default=len(rest))
            if rest[:cut].lower() == host:
                path = rest[cut:]
                return path if path.startswith(b"/") else b"/" + path
    return location
