"""An episode as a link: its reset options (the seed among them) and its actions, packed into
one URL-safe token (JSON, deflated, base64url) that the playground at ``/web/?episode=<token>``
replays step by step, so anyone's playground (a Space's too) reaches the same state.

A token is untrusted input: it is inflated to at most ``MAX_JSON_BYTES``, must hold an object
of reset options and at most ``MAX_ACTIONS`` action objects, and every action is validated by
the environment's action model as it is stepped. A history whose token is longer than
``MAX_LINK_CHARS`` does not fit a link that every browser and proxy keeps: the page offers the
episode's file instead (open it with 📂 Inspect episode and press ▶ Play from here).
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any

from openenv.web.episode.steps import set_fields

VERSION = 1
MAX_LINK_CHARS = 6000  # a URL's query, kept well inside what browsers and proxies accept
MAX_TOKEN_CHARS = 64 * 1024  # what the server reads at all
MAX_JSON_BYTES = 1024 * 1024
MAX_ACTIONS = 10_000


class ShareError(ValueError):
    """The token is not an episode this playground can replay; the message says why."""


def episode_token(reset: dict[str, Any], actions: list[dict[str, Any]]) -> str:
    """The token of an episode reset with ``reset`` and played with ``actions``."""
    body = {"v": VERSION, "reset": reset, "actions": [set_fields(a) for a in actions]}
    raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def read_token(token: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The reset options and actions of ``token``; :class:`ShareError` says what is wrong."""
    if not isinstance(token, str) or not token:
        raise ShareError("the link carries no episode")
    if len(token) > MAX_TOKEN_CHARS:
        raise ShareError(f"the link's episode is longer than {MAX_TOKEN_CHARS} characters")
    damaged = ShareError("the link's episode is damaged (was it cut short when copied?)")
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)),
                                  MAX_JSON_BYTES + 1)  # fmt: skip
    except (binascii.Error, zlib.error, ValueError):
        raise damaged from None
    if len(raw) > MAX_JSON_BYTES or inflater.unconsumed_tail:
        raise ShareError(f"the link's episode inflates past {MAX_JSON_BYTES // 1024} KiB")
    if not inflater.eof:  # the stream's end (and its checksum) is missing: a cut link
        raise damaged
    try:
        body = json.loads(raw)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError alike
        raise damaged from None
    if not isinstance(body, dict) or body.get("v") != VERSION:
        raise ShareError("the link's episode is not in a format this playground reads")
    reset, actions = body.get("reset"), body.get("actions")
    if not isinstance(reset, dict):
        raise ShareError("the link's reset options must be an object")
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        raise ShareError("the link's actions must be a list of objects")
    if len(actions) > MAX_ACTIONS:
        raise ShareError(f"the link holds {len(actions)} actions; at most {MAX_ACTIONS} replay")
    return reset, actions
