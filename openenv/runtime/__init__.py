"""Providers that start environment servers: a local process (default) or a Docker container.

``LocalProcessProvider(app)`` and ``DockerProvider(image)`` share one interface
(:class:`Provider`: start → base URL, wait_until_healthy, logs, stop). They know nothing of
clients: :mod:`openenv.launch` binds a provider to a typed client that stops it on close.
Names are imported on first use, so a server started by a provider (``openenv.runtime._child``)
loads none of this, and the ``docker`` SDK is only imported when the Docker provider is used.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "DockerProvider": "openenv.runtime.docker_provider",
    "EngineUnavailable": "openenv.core.errors",
    "EnvNotFound": "openenv.core.errors",
    "EnvUnavailable": "openenv.core.errors",
    "ImageNotFound": "openenv.core.errors",
    "LocalProcessProvider": "openenv.runtime.process",
    "Provider": "openenv.runtime.base",
    "ProviderError": "openenv.core.errors",
    "ServerExited": "openenv.core.errors",
    "ServerNotHealthy": "openenv.core.errors",
    "app_of_package": "openenv.runtime.process",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'openenv.runtime' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
