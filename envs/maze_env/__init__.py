"""Maze: an 8×8 gridworld maze from the start to the exit. Client-side exports."""

from maze_env.client import MazeEnv
from maze_env.models import MazeAction, MazeObservation, MazeState

__all__ = ["MazeAction", "MazeEnv", "MazeObservation", "MazeState"]
