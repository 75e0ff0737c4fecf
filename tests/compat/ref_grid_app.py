"""The grid world written against the ``openenv==0.10.0`` API (served by that package).

Run with the reference virtualenv's python: ``uvicorn ref_grid_app:app --app-dir tests/compat``.
Used by the compatibility tests (our client drives it) and by bench/ (the reference server).
Same rules as ``envs/grid_world_env``: 5×5, start (0, 0), goal (4, 4), UP/DOWN change x,
LEFT/RIGHT change y, -0.1 per step, +1.0 and done at the goal.
"""

import os
from enum import Enum
from uuid import uuid4

from pydantic import Field

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State

SIZE = 5
GOAL = (SIZE - 1, SIZE - 1)
MOVES = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1)}


class MoveAction(str, Enum):
    UP = "UP"
    DOWN = "DOWN"
    LEFT = "LEFT"
    RIGHT = "RIGHT"


class GridAction(Action):
    action: MoveAction = Field(description="Direction to move")


class GridObservation(Observation):
    x: int = 0
    y: int = 0
    message: str = ""


class GridState(State):
    x: int = 0
    y: int = 0


class GridEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self):
        super().__init__()
        self._state = GridState(episode_id=str(uuid4()))

    def reset(self, seed=None, episode_id=None, **kwargs) -> GridObservation:
        self._state = GridState(episode_id=episode_id or str(uuid4()))
        return GridObservation(message="Welcome to Grid World! Goal is at [4, 4].", reward=0.0)

    def step(self, action: GridAction, timeout_s=None, **kwargs) -> GridObservation:
        dx, dy = MOVES[MoveAction(action.action).value]
        s = self._state
        s.x = min(max(s.x + dx, 0), SIZE - 1)
        s.y = min(max(s.y + dy, 0), SIZE - 1)
        s.step_count += 1
        if (s.x, s.y) == GOAL:
            return GridObservation(
                x=s.x, y=s.y, message="You reached the goal!", reward=1.0, done=True
            )
        return GridObservation(x=s.x, y=s.y, message=f"Moved {action.action.value}.", reward=-0.1)

    @property
    def state(self) -> GridState:
        return self._state


app = create_app(
    GridEnvironment,
    GridAction,
    GridObservation,
    env_name="ref_grid_env",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
    state_cls=GridState,
)
