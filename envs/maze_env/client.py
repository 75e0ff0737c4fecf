"""Typed client of the maze server."""

from __future__ import annotations

from maze_env.models import MazeAction, MazeObservation, MazeState
from openenv.client import EnvClient


class MazeEnv(EnvClient[MazeAction, MazeObservation, MazeState]):
    """``async with MazeEnv(base_url=...) as env`` or ``MazeEnv(...).sync()``."""
