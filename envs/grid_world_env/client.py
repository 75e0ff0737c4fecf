"""Typed client of the grid world server."""

from __future__ import annotations

from grid_world_env.models import GridWorldAction, GridWorldObservation, GridWorldState, MoveAction
from openenv.client import EnvClient


class GridWorldEnv(EnvClient[GridWorldAction, GridWorldObservation, GridWorldState]):
    """``async with GridWorldEnv(base_url=...) as env`` or ``GridWorldEnv(...).sync()``."""

    async def step_move(self, move: MoveAction | str):
        return await self.step(GridWorldAction(action=MoveAction(move)))
