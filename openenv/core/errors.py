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
    """Raised on the client side; ``server_code`` is the server's wire code, or the transport's
    (``CONNECT``, ``TIMEOUT``, ``CLOSED``, ``PROTOCOL``). Catch a subclass for one cause:

    - :class:`ConnectFailed`, :class:`CallTimeout`, :class:`ConnectionLost`,
      :class:`ProtocolMismatch`: the transport;
    - :class:`ServerError`: the server answered with an error; for the codes a caller acts on,
      the error is also the server-side class itself (:class:`ServerInvalidAction` is an
      :class:`InvalidAction`, :class:`ServerResetNeeded` a :class:`ResetNeeded`...), so
      ``except InvalidAction`` works the same in process and over the wire.
    """

    code = "CLIENT_ERROR"
    http_status = 0

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.server_code = code or self.code

    def __str__(self) -> str:
        return f"[{self.server_code}] {self.message}"


class ConnectFailed(ClientError):
    """The client could not connect (refused, unreachable, TLS, a failed handshake)."""

    code = "CONNECT"


class CallTimeout(ClientError, TimeoutError):
    """No answer within the client's ``message_timeout_s``; a late answer is discarded."""

    code = "TIMEOUT"


class ConnectionLost(ClientError, ConnectionError):
    """The connection closed, or the server stopped answering pings: the session is gone and
    the next call opens a new one."""

    code = "CLOSED"


class SessionLost(ConnectionLost, ResetNeeded):
    """The server ended the session (a restart, a time limit, an operator), so its episode is
    gone: ``reset()`` starts a new one on a new session; any other call raises this."""

    code = "CLOSED"


class ProtocolMismatch(ClientError):
    """The server answered with a message of another type than the call expects."""

    code = "PROTOCOL"


class MixedModes(ClientError, RuntimeError):
    """A client used from plain code was awaited, or the other way round: one client instance
    keeps to the mode of its first call (:mod:`openenv.client.modes`)."""

    code = "MODE"


class ToolCallError(ClientError):
    """A tool call (or tool listing) was refused or failed; the message says why."""

    code = "TOOL_ERROR"


class ServerError(ClientError):
    """The server answered with an error; ``server_code`` is its wire code."""

    code = "SERVER_ERROR"


class ServerInvalidAction(ServerError, InvalidAction):
    """The server refused an action or reset option (``VALIDATION_ERROR``)."""

    code = "VALIDATION_ERROR"


class ServerResetNeeded(ServerError, ResetNeeded):
    """Stepping before reset or after the episode ended (``SESSION_ERROR``)."""

    code = "SESSION_ERROR"


class ServerCapacityReached(ServerError, CapacityReached):
    """The server runs as many sessions as it may (``CAPACITY_REACHED``)."""

    code = "CAPACITY_REACHED"


class ServerUnauthorized(ServerError, Unauthorized):
    """The server wants its API token (``UNAUTHORIZED``)."""

    code = "UNAUTHORIZED"


class ServerExecutionError(ServerError, ExecutionError):
    """The environment raised on the server (``EXECUTION_ERROR``)."""

    code = "EXECUTION_ERROR"


SERVER_ERRORS: dict[str, type[ServerError]] = {
    cls.code: cls
    for cls in (
        ServerInvalidAction,
        ServerResetNeeded,
        ServerCapacityReached,
        ServerUnauthorized,
        ServerExecutionError,
    )
}


def server_error(code: str | None, message: str) -> ServerError:
    """The client-side error for a server's ``{"code", "message"}`` (ServerError by default)."""
    cls = SERVER_ERRORS.get(code or "", ServerError)
    return cls(message, code or ServerError.code)


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
