"""Parsing /ws messages and building replies. Pure functions, no I/O.

Inbound: ``{"type": "reset"|"step"|"state"|"close"|"mcp"|"view"|"session", "data": {...},
"request_id"?: str}``. Outbound: ``{"type": "observation"|"state"|"error"|"mcp"|"view"|
"session", "data": {...}}``, with the inbound ``request_id`` echoed when one was given.
``view`` is ours, not the reference's (what the environment draws:
:mod:`openenv.core.view_wire`); so is ``session`` (``{"id": handle, "watch": watch ref}``:
the connection's own session, which a notebook's playground watches); the
``x-openenv-features`` header of the handshake says a server answers them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from openenv.core.errors import InvalidAction, InvalidJSON, OpenEnvError, UnknownMessageType
from openenv.core.serialization import dump_json, is_text, load_untrusted

# What our servers do beyond the reference protocol, said in the x-openenv-features header of
# the /ws handshake and by GET /features: echo request_id (the reference refuses unknown keys)
# and answer {"type": "view"} (a playground in front of the server draws its views).
FEATURES = ("request-id", "views", "session")
MESSAGE_TYPES = frozenset({"reset", "step", "state", "close", "mcp", "view", "session"})


class Message(NamedTuple):
    """One parsed inbound message (a tuple: ``kind, data, request_id = message``)."""

    type: str
    data: Any
    request_id: Any = None


def parse_message(raw: str | bytes | None) -> Message:
    """Parse one frame; raise InvalidJSON / UnknownMessageType with a message saying why."""
    if raw is None or isinstance(raw, bytes):
        raise InvalidJSON("binary frames are not supported: send JSON text frames")
    try:
        obj = load_untrusted(raw)
    except ValueError as exc:
        raise InvalidJSON(f"message is {exc}") from None
    if not isinstance(obj, dict):
        raise InvalidJSON(f"message must be a JSON object, got {_json_kind(obj)}")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        known = ", ".join(sorted(MESSAGE_TYPES))
        raise UnknownMessageType(f"unknown message type {kind!r}; expected one of: {known}")
    data = obj.get("data")
    if data is None:
        data = {}
    if kind in ("reset", "step") and not isinstance(data, dict):
        raise InvalidAction(f"'data' of a {kind} message must be a JSON object")
    request_id = obj.get("request_id")
    if request_id is not None and not valid_request_id(request_id):
        raise InvalidJSON(REQUEST_ID_RULE)
    return Message(kind, data, request_id)


MAX_REQUEST_ID = 200
REQUEST_ID_RULE = f"request_id must be a string of at most {MAX_REQUEST_ID} characters or a number"


def valid_request_id(value: Any) -> bool:
    """Whether ``value`` can be echoed as a request_id: short text, or a number."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return abs(value) < 2**53
    return is_text(value) and len(value) <= MAX_REQUEST_ID


def request_id_of(raw: str | bytes | None) -> Any:
    """Best-effort request_id of a frame that failed to parse, so its error is correlated (none
    when it is not one that can be echoed)."""
    if not isinstance(raw, str):
        return None
    try:
        obj = load_untrusted(raw)
    except ValueError:
        return None
    request_id = obj.get("request_id") if isinstance(obj, dict) else None
    return request_id if request_id is not None and valid_request_id(request_id) else None


def reply(kind: str, data: Any, request_id: Any = None) -> str:
    message: dict[str, Any] = {"type": kind, "data": data}
    if request_id is not None:
        message["request_id"] = request_id
    return dump_json(message)


def error_reply(error: OpenEnvError, request_id: Any = None, *, closed: bool = False) -> str:
    """An error frame; ``closed`` marks the notice that the server ends the session (the
    connection closes next): a client's call that reads it knows its episode is gone."""
    data: dict[str, Any] = error.to_wire()
    if closed:
        data["closed"] = True
    return reply("error", data, request_id)


def _json_kind(obj: Any) -> str:
    if obj is None:
        return "null"
    return {list: "an array", str: "a string", bool: "a boolean"}.get(type(obj), "a number")
