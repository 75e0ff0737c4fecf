"""What an environment's manifest (``openenv.yaml``) says about it, read the same way everywhere.

The server's playground, the catalog, ``openenv list`` and the Space bundles all show an
environment's title; this is the one rule for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def display_title(data: Mapping[str, Any], name: str) -> str:
    """The name people read: the manifest's ``title``, else ``name`` spelt out (``Grid World``)."""
    return str(data.get("title") or name.replace("_", " ").title())
