"""Chess with full rules against moonfish, our alpha-beta engine, random moves or yourself.

Client-side exports; the server needs the ``chess`` extra.
"""

from chess_env.client import ChessEnv
from chess_env.models import ChessAction, ChessObservation, ChessState

__all__ = ["ChessAction", "ChessEnv", "ChessObservation", "ChessState"]
