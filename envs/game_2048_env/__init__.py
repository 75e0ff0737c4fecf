"""2048 on a 4×4 board. Client-side exports."""

from game_2048_env.client import Game2048Env
from game_2048_env.models import Direction, Game2048Action, Game2048Observation, Game2048State

__all__ = ["Direction", "Game2048Action", "Game2048Env", "Game2048Observation", "Game2048State"]
