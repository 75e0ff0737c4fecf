"""Serve an ASGI app on a free loopback port in a background thread (tests, bench, CLI)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve_in_thread(
    app: Any, *, host: str = "127.0.0.1", port: int = 0, timeout: float = 60.0
) -> Iterator[str]:
    """Run ``app`` with uvicorn until the block ends; yields its base URL once it accepts."""
    port = port or free_port(host)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="off", timeout_keep_alive=30
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn:{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"server on {host}:{port} did not start")
        time.sleep(0.01)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
