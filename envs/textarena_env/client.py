"""Typed client of the TextArena server."""

from __future__ import annotations

from openenv.client import EnvClient
from textarena_env.models import TextArenaAction, TextArenaObservation, TextArenaState


class TextArenaEnv(EnvClient[TextArenaAction, TextArenaObservation, TextArenaState]):
    """``async with TextArenaEnv(base_url=...) as env`` or ``TextArenaEnv(...).sync()``."""
