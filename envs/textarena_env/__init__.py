"""TextArena's offline single- and two-player text games. Client-side exports."""

from textarena_env.client import TextArenaEnv
from textarena_env.models import (
    TextArenaAction,
    TextArenaMessage,
    TextArenaObservation,
    TextArenaState,
)

__all__ = [
    "TextArenaAction",
    "TextArenaEnv",
    "TextArenaMessage",
    "TextArenaObservation",
    "TextArenaState",
]
