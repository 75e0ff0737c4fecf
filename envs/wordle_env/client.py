"""Typed client of the Wordle server."""

from __future__ import annotations

from openenv.client import EnvClient
from wordle_env.models import WordleAction, WordleObservation, WordleState


class WordleEnv(EnvClient[WordleAction, WordleObservation, WordleState]):
    """``async with WordleEnv(base_url=...) as env`` or ``WordleEnv(...).sync()``."""
