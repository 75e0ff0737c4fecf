"""Bounds on what a reset option may make an episode cost, for options anyone may send.

A public server takes reset options from anonymous visitors. Options that set how much work a
step or a reset does (a frame size, a search depth, a board size) have bounds in their schema
(``Annotated[int, Field(ge=1, le=32)]``), which the playground's form shows; options that are
free-form settings passed on to a library (Gymnasium's ``env_kwargs``, a dataset's config) go
through :func:`check_settings`: small JSON, numbers within a bound.
"""

from __future__ import annotations

import json
from typing import Any

from openenv.core.errors import InvalidAction

MAX_SETTINGS_BYTES = 2048
MAX_SETTINGS_NUMBER = 10_000


def check_settings(
    name: str,
    value: Any,
    *,
    max_bytes: int = MAX_SETTINGS_BYTES,
    max_number: float = MAX_SETTINGS_NUMBER,
) -> None:
    """Refuse settings larger than ``max_bytes`` of JSON or holding a number beyond
    ``max_number`` (InvalidAction says which bound), so one reset cannot ask for a huge world."""
    try:
        size = len(json.dumps(value))
    except (TypeError, ValueError):
        raise InvalidAction(f"{name} must be plain JSON (objects, lists, numbers, text)") from None
    if size > max_bytes:
        raise InvalidAction(f"{name} is {size} bytes of JSON; at most {max_bytes} are accepted")
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif (
            isinstance(item, int | float)
            and not isinstance(item, bool)
            and not -max_number <= item <= max_number
        ):
            raise InvalidAction(
                f"{name} holds {item!r}: numbers from -{max_number:g} to {max_number:g} "
                "are accepted"
            )
