"""Errors of the runtime layer (starting and finding environment servers)."""

from __future__ import annotations


class ProviderError(RuntimeError):
    """A server could not be started, did not become healthy, or its engine is unavailable."""


class EnvNotFound(LookupError):
    """No installed environment package matches the requested name."""
