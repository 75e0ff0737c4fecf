"""Grid world: a deterministic 5×5 walk to the goal. Client-side exports."""

from grid_world_env.client import GridWorldEnv
from grid_world_env.models import GridWorldAction, GridWorldObservation, GridWorldState, MoveAction

__all__ = [
    "GridWorldAction",
    "GridWorldEnv",
    "GridWorldObservation",
    "GridWorldState",
    "MoveAction",
]
