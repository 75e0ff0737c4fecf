"""Typed client of the Connect Four server."""

from __future__ import annotations

from connect4_env.models import Connect4Action, Connect4Observation, Connect4State
from openenv.client import EnvClient


class Connect4Env(EnvClient[Connect4Action, Connect4Observation, Connect4State]):
    """``async with Connect4Env(base_url=...) as env`` or ``Connect4Env(...).sync()``."""
