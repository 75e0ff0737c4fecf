"""Optional bearer-token protection of simulation control (reset/step/state and /ws)."""

from __future__ import annotations

import hmac
import logging
import os
import re

from openenv.core.errors import Unauthorized

TOKEN_ENV_VAR = "OPENENV_API_TOKEN"
REDACTED = "[redacted]"
# Loggers that see request headers: uvicorn (the websockets library logs handshakes there at
# debug level), the websockets library itself, and ours.
_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "websockets", "websockets.server")
_LOGGERS += ("openenv", "openenv.server")
_AUTH_HEADER = re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?)(bearer\s+)?[^\s'\",}]+")


def configured_token(explicit: str | None = None) -> str | None:
    token = explicit if explicit is not None else os.environ.get(TOKEN_ENV_VAR)
    return token or None


class RedactSecrets(logging.Filter):
    """Rewrites log records so that no token or Authorization header value is ever written."""

    def __init__(self, token: str | None) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}{REDACTED}", message)
        if self.token:
            clean = clean.replace(self.token, REDACTED)
        if clean != message:
            record.msg, record.args = clean, ()
        return True


def redact_logs(token: str | None) -> None:
    """Install :class:`RedactSecrets` on the loggers that may see request headers (once each)."""
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        for old in [f for f in logger.filters if isinstance(f, RedactSecrets)]:
            logger.removeFilter(old)
        logger.addFilter(RedactSecrets(token))


def check_bearer(expected: str | None, authorization: str | None) -> None:
    """Raise Unauthorized unless ``authorization`` is ``Bearer <expected>`` (constant time)."""
    if expected is None:
        return
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        given.strip().encode(), expected.encode()
    ):
        raise Unauthorized(
            "this server requires an API token: send 'Authorization: Bearer <token>' "
            f"(clients read it from ${TOKEN_ENV_VAR})"
        )
