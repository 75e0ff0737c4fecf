"""``openenv.core.env_server.exceptions``: ``openenv`` 0.10's server error names, each one of
our errors (:mod:`openenv.core.errors`), so ``except SessionCapacityError`` catches ours."""

from __future__ import annotations

from openenv.core.errors import CapacityReached, FactoryError, OpenEnvError, SessionNotFound

__all__ = [
    "ConcurrencyConfigurationError",
    "EnvironmentFactoryError",
    "OpenEnvError",
    "SessionCapacityError",
    "SessionCreationError",
    "SessionNotFoundError",
]

SessionCapacityError = CapacityReached
SessionNotFoundError = SessionNotFound
EnvironmentFactoryError = FactoryError
SessionCreationError = FactoryError


class ConcurrencyConfigurationError(OpenEnvError, ValueError):
    """More concurrent sessions were asked of an environment than it supports."""

    code = "FACTORY_ERROR"
