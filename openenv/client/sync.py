"""Blocking wrapper around an async client, safe to use inside Jupyter's running loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, Generic, Self, TypeVar

from openenv.client.blocking import run_now
from openenv.client.connections import proxied
from openenv.client.env_client import EnvClient, ws_url
from openenv.core.mcp import Tool
from openenv.core.types import ActT, ObsT, StateT, StepResult

_T = TypeVar("_T")


class _LoopThread:
    """A private event loop on a daemon thread; coroutines are submitted to it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, daemon=True, name="openenv-sync"
        )
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=5)
        self.loop.close()


class SyncEnvClient(Generic[ActT, ObsT, StateT]):
    """Blocking twin of an :class:`EnvClient`: same methods, no ``await``.

    Its calls run in the caller's thread on a blocking connection
    (:mod:`openenv.client.blocking`): the async client's own methods are driven to their end
    without an event loop, since none of their awaits suspends on that connection. Through a
    proxy, and for other coroutine methods of a subclass, the async client runs on a private
    event-loop thread instead. One call at a time: calls from several threads take turns.
    """

    def __init__(self, client: EnvClient[ActT, ObsT, StateT]) -> None:
        self._client = client
        self._loop: _LoopThread | None = None
        self._turn = threading.Lock()
        self._direct = not proxied(ws_url(client.base_url))
        client._blocking = self._direct

    @property
    def client(self) -> EnvClient[ActT, ObsT, StateT]:
        """The async client this one drives."""
        return self._client

    def _run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run one of the client's own calls (they only await the connection)."""
        if not self._direct:
            return self._in_loop(coro)
        with self._turn:
            return run_now(coro)

    def _in_loop(self, coro: Coroutine[Any, Any, _T]) -> _T:
        with self._turn:
            if self._loop is None:
                self._loop = _LoopThread()
            return self._loop.run(coro)

    def connect(self) -> Self:
        """Open the session (a no-op when it is open already)."""
        self._run(self._client.connect())
        return self

    def reset(self, **kwargs: Any) -> StepResult[ObsT]:
        """Start an episode; ``seed``, ``episode_id`` and env options go in ``kwargs``."""
        return self._run(self._client.reset(**kwargs))

    def step(self, action: ActT | dict[str, Any], **kwargs: Any) -> StepResult[ObsT]:
        """Take one step with ``action`` (a model, or a dict of its fields)."""
        return self._run(self._client.step(action, **kwargs))

    def state(self) -> StateT:
        """The episode's current state."""
        return self._run(self._client.state())

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            result = attr(*args, **kwargs)
            return self._in_loop(result) if asyncio.iscoroutine(result) else result

        return call

    def close(self) -> None:
        """Close the session (and the private event loop, if one was started)."""
        try:
            self._run(self._client.close())
        finally:
            if self._loop is not None:
                self._loop.stop()
                self._loop = None

    def list_tools(self) -> list[Tool]:
        """The environment's tools: name, description and JSON input schema."""
        return self._run(self._client.list_tools())

    def call_tool(self, name: str, /, **arguments: Any) -> Any:
        """Call a tool; return what it returned or raise ToolCallError."""
        return self._run(self._client.call_tool(name, **arguments))

    def mcp_request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send one JSON-RPC request over the session; return its ``result`` or raise."""
        return self._run(self._client.mcp_request(method, params))

    def __enter__(self) -> Self:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()
