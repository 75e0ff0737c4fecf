"""Snake: the classic game on a configurable grid. Client-side exports."""

from snake_env.client import SnakeEnv
from snake_env.models import Direction, SnakeAction, SnakeObservation, SnakeState

__all__ = ["Direction", "SnakeAction", "SnakeEnv", "SnakeObservation", "SnakeState"]
