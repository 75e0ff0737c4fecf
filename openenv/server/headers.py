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
