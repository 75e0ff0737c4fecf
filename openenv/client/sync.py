"""The blocking wrapper ``client.sync()``: the same methods, typed as returning results.

An :class:`EnvClient` answers plain code by itself (:mod:`openenv.client.modes`); ``.sync()``
turns it sync at once and gives a wrapper whose methods a type checker reads as blocking, and
which is safe inside Jupyter's running loop.
"""

from __future__ import annotations

from typing import Any, Generic, Self

from openenv.client.env_client import EnvClient
from openenv.core.mcp import Tool
from openenv.core.types import ActT, ObsT, StateT, StepResult


class SyncEnvClient(Generic[ActT, ObsT, StateT]):
    """Blocking twin of an :class:`EnvClient`: same methods, no ``await``.

    Calls run in the caller's thread on a blocking connection (through a proxy, and for a
    subclass's own coroutine methods, on a private event-loop thread). One call at a time:
    calls from several threads take turns.
    """

    def __init__(self, client: EnvClient[ActT, ObsT, StateT]) -> None:
        client._modes.claim("sync")
        self._client = client
        self._calls: Any = client  # a sync client's calls return results (typed async)

    @property
    def client(self) -> EnvClient[ActT, ObsT, StateT]:
        """The async client this one drives."""
        return self._client

    def connect(self) -> Self:
        """Open the session (a no-op when it is open already)."""
        self._calls.connect()
        return self

    def reset(self, **kwargs: Any) -> StepResult[ObsT]:
        """Start an episode; ``seed``, ``episode_id`` and env options go in ``kwargs``."""
        return self._calls.reset(**kwargs)

    def step(self, action: ActT | dict[str, Any], **kwargs: Any) -> StepResult[ObsT]:
        """Take one step with ``action`` (a model, or a dict of its fields)."""
        return self._calls.step(action, **kwargs)

    def state(self) -> StateT:
        """The episode's current state."""
        return self._calls.state()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)  # a subclass's own methods answer plain code too

    def close(self) -> None:
        """Close the session (and the private event loop, if one was started)."""
        self._calls.close()

    def list_tools(self) -> list[Tool]:
        """The environment's tools: name, description and JSON input schema."""
        return self._calls.list_tools()

    def call_tool(self, name: str, /, **arguments: Any) -> Any:
        """Call a tool; return what it returned or raise ToolCallError."""
        return self._calls.call_tool(name, **arguments)

    def mcp_request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send one JSON-RPC request over the session; return its ``result`` or raise."""
        return self._calls.mcp_request(method, params)

    def __enter__(self) -> Self:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()
