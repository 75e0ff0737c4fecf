"""Blocking wrapper around an async client, safe to use inside Jupyter's running loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any


class _LoopThread:
    """A private event loop on a daemon thread; coroutines are submitted to it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, daemon=True, name="openenv-sync"
        )
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=5)
        self.loop.close()


class SyncEnvClient:
    """Blocking twin of an :class:`EnvClient`: same methods, no ``await``."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._loop: _LoopThread | None = None

    @property
    def client(self) -> Any:
        return self._client

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        if self._loop is None:
            self._loop = _LoopThread()
        return self._loop.run(coro)

    def connect(self) -> SyncEnvClient:
        self._run(self._client.connect())
        return self

    def reset(self, **kwargs: Any) -> Any:
        return self._run(self._client.reset(**kwargs))

    def step(self, action: Any, **kwargs: Any) -> Any:
        return self._run(self._client.step(action, **kwargs))

    def state(self) -> Any:
        return self._run(self._client.state())

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            result = attr(*args, **kwargs)
            return self._run(result) if asyncio.iscoroutine(result) else result

        return call

    def close(self) -> None:
        if self._loop is None:
            return
        try:
            self._run(self._client.close())
        finally:
            self._loop.stop()
            self._loop = None

    def __enter__(self) -> SyncEnvClient:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()
