"""Typed client of the snake server."""

from __future__ import annotations

from openenv.client import EnvClient
from snake_env.models import SnakeAction, SnakeObservation, SnakeState


class SnakeEnv(EnvClient[SnakeAction, SnakeObservation, SnakeState]):
    """``async with SnakeEnv(base_url=...) as env`` or ``SnakeEnv(...).sync()``."""
