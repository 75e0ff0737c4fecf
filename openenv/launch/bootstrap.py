"""Turn a provider into a client that owns it: start, wait until healthy, connect.

``launch_client(GridWorldEnv, provider)`` returns an (unconnected) client whose ``close()``
stops the provider. :class:`Bootstrap` is the lazy handle ``from_docker_image`` returns: ``await``
it for a connected async client, call ``.sync()`` for a connected blocking one, or use it as the
client in plain code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from typing import Any, Generic, TypeVar

from openenv.runtime.base import Provider

C = TypeVar("C")

DEFAULT_START_TIMEOUT_S = 120.0


def launch_client(
    client_cls: Callable[..., C],
    provider: Provider,
    *,
    timeout_s: float = DEFAULT_START_TIMEOUT_S,
    **client_kwargs: Any,
) -> C:
    """Start ``provider``, wait until healthy, return ``client_cls`` bound to it (not connected).

    The client owns the provider: closing it stops the server. If anything fails before the
    client exists, the provider is stopped here, since nobody else could stop it.
    """
    try:
        base_url = provider.start()
        provider.wait_until_healthy(timeout_s)
        return client_cls(base_url=base_url, provider=provider, **client_kwargs)
    except BaseException:
        provider.stop()
        raise


class Bootstrap(Generic[C]):
    """Lazy handle on a client to start: ``await handle``, ``handle.sync()``, or, in plain
    code, use the handle as the client (``env = X.from_docker_image(image); env.reset()`` and
    ``with X.from_docker_image(image) as env:``, as ``openenv`` 0.10's docs write it): the
    server starts on first use, once."""

    def __init__(self, make: Callable[[], C]) -> None:
        self._make = make
        self._blocking: Any = None

    def __await__(self) -> Generator[Any, None, C]:
        return self._resolve().__await__()

    async def _resolve(self) -> C:
        client: Any = await asyncio.to_thread(self._make)
        try:
            await client.connect()
        except BaseException:
            await client.close()
            raise
        return client

    def sync(self) -> Any:
        """Start and connect now; return the blocking client (closing it stops the server)."""
        if self._blocking is None:
            blocking = self._make().sync()  # type: ignore[attr-defined]
            try:
                blocking.connect()
            except BaseException:
                blocking.close()
                raise
            self._blocking = blocking
        return self._blocking

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.sync(), name)

    def __enter__(self) -> Any:
        return self.sync()

    def __exit__(self, *exc: object) -> None:
        self.sync().close()
