"""Run an ASGI app the way a Space does: ``$HOST`` (default 0.0.0.0) and ``$PORT``."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

DEFAULT_HOST = "0.0.0.0"
WS_PING_INTERVAL_S = 20.0
WS_PING_TIMEOUT_S = 20.0


def bind_address(
    host: str | None = None, port: int | None = None, default_port: int = 8000
) -> tuple[str, int]:
    """The host and port to listen on: arguments, then ``$HOST`` / ``$PORT``, then defaults."""
    host = host or os.environ.get("HOST") or DEFAULT_HOST
    if port is None:
        raw = os.environ.get("PORT", "").strip()
        try:
            port = int(raw) if raw else default_port
        except ValueError:
            raise SystemExit(f"$PORT must be a number, got {raw!r}") from None
    return host, port


def uvicorn_options(**overrides: Any) -> dict[str, Any]:
    """The options ``openenv serve`` runs uvicorn with (``uvicorn.run`` / ``uvicorn.Config``
    keywords), with ``overrides``: one place for the server, the tests and the examples.

    WebSocket pings keep idle episodes alive behind the Hub's proxy (and find dead peers: a
    connected session is never reaped as idle). Per-message deflate is off: a client that asks
    for it (the ``websockets`` default) would otherwise cost about 64 KiB of zlib state per idle
    session instead of about 24, and frames on the wire are compressed already
    (:mod:`openenv.core.frames`). The WebSocket protocol is :mod:`openenv.server.lean_ws`'s,
    which needs less memory per idle session; the HTTP protocol is
    :mod:`openenv.server.guarded_http`'s, which closes a connection whose request headers never
    finish; messages are bounded by :mod:`openenv.server.limits`.
    """
    from openenv.server.guarded_http import GuardedH11Protocol
    from openenv.server.lean_ws import ws_protocol
    from openenv.server.limits import ws_max_size

    options: dict[str, Any] = {
        "ws_ping_interval": WS_PING_INTERVAL_S,
        "ws_ping_timeout": WS_PING_TIMEOUT_S,
        "ws_per_message_deflate": False,
        "ws_max_size": ws_max_size(),
        "ws": ws_protocol(),
        "http": GuardedH11Protocol,
    }
    return {**options, **overrides}


def run(
    app: Any,
    *,
    host: str | None = None,
    port: int | None = None,
    default_port: int = 8000,
    log_level: str = "info",
) -> None:
    """Serve ``app`` with uvicorn until interrupted, with :func:`uvicorn_options`; forwarded
    headers are trusted so URLs built by the playground use the public scheme and host."""
    import uvicorn

    host, port = bind_address(host, port, default_port)
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    print(f"Serving on http://{shown}:{port}  (Ctrl+C to stop)", flush=True)
    uvicorn.run(
        app,
        **uvicorn_options(
            host=host,
            port=port,
            log_level=log_level,
            proxy_headers=True,
            forwarded_allow_ips="*",
            timeout_graceful_shutdown=5,
        ),
    )


@contextlib.contextmanager
def serve_in_thread(app: Any, *, start_timeout_s: float = 120.0, **overrides: Any) -> Iterator[str]:
    """Serve ``app`` from a thread of this process on a free loopback port, with
    :func:`uvicorn_options` (and ``overrides``); yield its URL until the block ends.

    The app's lifespan runs (startup before the first request, shutdown at the end), as under
    ``openenv serve``: for tests, notebooks and examples that want a server without a process.
    """
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    options = {"log_level": "warning", "timeout_graceful_shutdown": 3, **overrides}
    server = uvicorn.Server(uvicorn.Config(app, **uvicorn_options(**options)))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="openenv-server"
    )
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the in-process server stopped before it started (see its log)")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the in-process server did not start within {start_timeout_s}s")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
