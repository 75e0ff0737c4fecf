"""Typed client of the 2048 server."""

from __future__ import annotations

from game_2048_env.models import Game2048Action, Game2048Observation, Game2048State
from openenv.client import EnvClient


class Game2048Env(EnvClient[Game2048Action, Game2048Observation, Game2048State]):
    """``async with Game2048Env(base_url=...) as env`` or ``Game2048Env(...).sync()``."""
