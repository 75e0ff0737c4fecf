"""Every error the framework raises on purpose, each mapped to one wire code and HTTP status.

Servers turn these into ``{"type": "error", "data": {"message", "code"}}`` on /ws and into
``{"detail": message, "code": code}`` with ``http_status`` over HTTP. Messages say what to do.
"""

from __future__ import annotations

from typing import ClassVar


class OpenEnvError(Exception):
    """Base class. ``code`` is the wire error code, ``http_status`` the HTTP status."""

    code: ClassVar[str] = "EXECUTION_ERROR"
    http_status: ClassVar[int] = 500

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def to_wire(self) -> dict[str, str]:
        return {"message": self.message, "code": self.code}


class InvalidJSON(OpenEnvError):
    """A message was not a JSON object."""

    code = "INVALID_JSON"
    http_status = 400


class UnknownMessageType(OpenEnvError):
    """A /ws message had a ``type`` the server does not know."""

    code = "UNKNOWN_TYPE"
    http_status = 400


class InvalidAction(OpenEnvError):
    """An action (or reset option) failed validation, or the environment refused it as illegal.

    The environment is left exactly as it was; the same session can send another action.
    """

    code = "VALIDATION_ERROR"
    http_status = 422


class ResetNeeded(OpenEnvError):
    """``step()`` was called before ``reset()`` or after the episode ended."""

    code = "SESSION_ERROR"
    http_status = 409


class SessionNotFound(OpenEnvError):
    """The session is closed, expired or was never opened."""

    code = "SESSION_ERROR"
    http_status = 404


class CapacityReached(OpenEnvError):
    """The server already runs ``max_concurrent_envs`` sessions."""

    code = "CAPACITY_REACHED"
    http_status = 503


class FactoryError(OpenEnvError):
    """The environment could not be constructed."""

    code = "FACTORY_ERROR"
    http_status = 500


class ExecutionError(OpenEnvError):
    """The environment raised while handling a call (a bug in the environment, not the caller)."""

    code = "EXECUTION_ERROR"
    http_status = 500


class Unauthorized(OpenEnvError):
    """A bearer token is required and was missing or wrong (the token itself is never echoed)."""

    code = "UNAUTHORIZED"
    http_status = 401


class ClientError(OpenEnvError):
    """Raised on the client side: carries the server's code and message, or a transport failure."""

    code = "CLIENT_ERROR"
    http_status = 0

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.server_code = code or self.code

    def __str__(self) -> str:
        return f"[{self.server_code}] {self.message}"


WIRE_CODES: dict[str, type[OpenEnvError]] = {
    cls.code: cls
    for cls in (
        InvalidJSON,
        UnknownMessageType,
        InvalidAction,
        ResetNeeded,
        CapacityReached,
        FactoryError,
        ExecutionError,
        Unauthorized,
    )
}


# -- Local errors: raised in the caller's process while finding, starting or pooling environment
# servers. They never cross the wire (not in WIRE_CODES); each keeps the builtin base it had.


class EnvNotFound(OpenEnvError, LookupError):
    """No installed environment package matches the requested name."""

    code = "ENV_NOT_FOUND"


class EnvUnavailable(OpenEnvError):
    """An environment exists but cannot run here: its optional dependencies (its extra) are
    missing or broken. ``install`` is the command that fixes it, when one is known."""

    code = "ENV_UNAVAILABLE"

    def __init__(self, name: str, reason: str, install: str | None) -> None:
        hint = f"; install it with: {install}" if install else ""
        super().__init__(f"environment {name!r} is unavailable: {reason}{hint}")
        self.name = name
        self.reason = reason
        self.install = install


class ProviderError(OpenEnvError, RuntimeError):
    """An environment server (local process or Docker container) could not be started."""

    code = "PROVIDER_ERROR"


class EngineUnavailable(ProviderError):
    """The Docker provider has no Docker SDK installed or no reachable Docker engine."""


class ImageNotFound(ProviderError):
    """The Docker image is not on the engine (no registry is ever pulled: build it first)."""


class ServerExited(ProviderError):
    """The server process or container stopped before answering ``GET /health``."""


class ServerNotHealthy(ProviderError):
    """The server kept running but did not answer ``GET /health`` within the timeout."""


class PoolClosed(OpenEnvError, RuntimeError):
    """An :class:`~openenv.client.pool.EnvPool` was used after ``close()``."""

    code = "POOL_CLOSED"
