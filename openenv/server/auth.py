"""Optional bearer-token protection of simulation control (reset/step/state and /ws)."""

from __future__ import annotations

import hmac
import os

from openenv.core.errors import Unauthorized

TOKEN_ENV_VAR = "OPENENV_API_TOKEN"


def configured_token(explicit: str | None = None) -> str | None:
    token = explicit if explicit is not None else os.environ.get(TOKEN_ENV_VAR)
    return token or None


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
