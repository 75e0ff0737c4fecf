"""The provider interface: start an environment server, wait for it, read its logs, stop it.

A provider owns exactly one server (a local process or a container). Its life cycle::

    provider = LocalProcessProvider(app="grid_world_env.server.app:app")
    url = provider.start()          # -> "http://127.0.0.1:<port>"; starting twice is a no-op
    provider.wait_until_healthy()   # GET /health until it answers 200, or raise with the logs
    provider.logs()                 # the server's recent output
    provider.stop()                 # idempotent; also done at interpreter exit

``with provider:`` starts it, waits until healthy and stops it on exit. Every provider also
makes sure its server dies with the process that started it, even on SIGKILL (see each
provider for how).
"""

from __future__ import annotations

import atexit
import contextlib
import time
import weakref
from abc import ABC, abstractmethod

import httpx

from openenv.core.errors import ProviderError, ServerExited, ServerNotHealthy

_LIVE: weakref.WeakSet[Provider] = weakref.WeakSet()


def _stop_all_at_exit() -> None:
    for provider in list(_LIVE):
        with contextlib.suppress(ProviderError, OSError):
            provider.stop()


atexit.register(_stop_all_at_exit)


class Provider(ABC):
    """Starts one environment server and owns it until :meth:`stop`."""

    def __init__(self) -> None:
        self._base_url: str | None = None

    @property
    def base_url(self) -> str | None:
        """The server's HTTP address while it runs, else ``None``."""
        return self._base_url

    def start(self) -> str:
        """Start the server (once) and return its base URL; it may not be healthy yet."""
        if self._base_url is None:
            self._base_url = self._start()
            _LIVE.add(self)
        return self._base_url

    def stop(self) -> None:
        """Stop the server and release everything it holds. Safe to call any number of times."""
        if self._base_url is None:
            return
        try:
            self._stop()
        finally:
            self._base_url = None
            _LIVE.discard(self)

    def wait_until_healthy(self, timeout_s: float = 60.0) -> None:
        """Poll ``GET /health`` until it answers 200; raise :class:`ServerExited` or
        :class:`ServerNotHealthy` (both :class:`ProviderError`) with its logs."""
        url = self.start()
        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=2.0, trust_env=False) as http:
            while time.monotonic() < deadline:
                if not self.is_alive():
                    raise ServerExited(
                        f"{self} exited before becoming healthy. Its output:\n{self.logs()}"
                    )
                with contextlib.suppress(httpx.HTTPError):
                    if http.get(url + "/health").status_code == 200:
                        return
                time.sleep(0.05)
        raise ServerNotHealthy(
            f"{self} did not answer GET {url}/health within {timeout_s}s; raise timeout_s if "
            f"the server is slow to import. Its output:\n{self.logs()}"
        )

    def respawn(self) -> Provider:
        """A new, unstarted provider configured like this one: the replacement an
        :class:`~openenv.client.pool.EnvPool` starts for a server that died."""
        raise ProviderError(f"{type(self).__name__} cannot start a replacement of itself")

    @abstractmethod
    def is_alive(self) -> bool:
        """Whether the server process or container is still running."""

    @abstractmethod
    def logs(self, tail: int = 100) -> str:
        """The last ``tail`` lines the server wrote to stdout and stderr."""

    @abstractmethod
    def _start(self) -> str:
        """Launch the server; return its base URL."""

    @abstractmethod
    def _stop(self) -> None:
        """Terminate the server and everything it started."""

    def __enter__(self) -> Provider:
        self.start()
        try:
            self.wait_until_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
