"""Connect Four on a 6×7 board against a built-in opponent or a second player."""

from connect4_env.client import Connect4Env
from connect4_env.models import Connect4Action, Connect4Observation, Connect4State

__all__ = ["Connect4Action", "Connect4Env", "Connect4Observation", "Connect4State"]
