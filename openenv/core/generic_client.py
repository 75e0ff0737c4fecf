"""``openenv.core.generic_client``: ``GenericEnvClient`` at ``openenv`` 0.10's import path
(ours: :class:`openenv.client.GenericEnvClient`; actions and observations are plain dicts)."""

from typing import Any

from openenv.client.generic import GenericEnvClient

__all__ = ["GenericAction", "GenericEnvClient"]


class GenericAction(dict[str, Any]):
    """An action as a plain dict: ``GenericAction(direction="up")``."""
