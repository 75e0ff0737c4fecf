"""Typed client of the chess server."""

from __future__ import annotations

from chess_env.models import ChessAction, ChessObservation, ChessState
from openenv.client import EnvClient


class ChessEnv(EnvClient[ChessAction, ChessObservation, ChessState]):
    """``async with ChessEnv(base_url=...) as env`` or ``ChessEnv(...).sync()``."""
