"""Connect four against a fixed reply, as published envs write it for ``openenv==0.10.0``.

Why: the playground must draw a board sent as nested integers (``board``, 0 empty, 1 the
player, -1 the reply), name the integer action's buttons (``column`` from 0 to 6: no names
anywhere, so "column 3"), and draw a grid that only ``metadata`` carries, as a JSON string
(``metadata["heights"]``: each column's height, one row).

- Action ``{"column": 0..6}`` (pydantic refuses anything else).
- Observation ``board`` (6 rows of 7), ``legal_actions`` (columns not full), ``message``.
- The reply drops a -1 into the leftmost column that is not full. Reward 0; no win check.
"""

import json
import os
from uuid import uuid4

from pydantic import Field

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State

ROWS, COLS = 6, 7


class DropAction(Action):
    column: int = Field(ge=0, le=COLS - 1, description="Column to drop a piece into")


class DropObservation(Observation):
    board: list[list[int]] = Field(default_factory=list)
    legal_actions: list[int] = Field(default_factory=list)
    message: str = ""


class DropEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self._state = State(episode_id=str(uuid4()))
        self._board = [[0] * COLS for _ in range(ROWS)]

    def reset(self, seed=None, episode_id=None, **kwargs) -> DropObservation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        self._board = [[0] * COLS for _ in range(ROWS)]
        return self._observe("Your move.")

    def step(self, action: DropAction, timeout_s=None, **kwargs) -> DropObservation:
        self._drop(action.column, 1)
        legal = self._legal()
        if legal:
            self._drop(legal[0], -1)
        self._state.step_count += 1
        return self._observe(f"You played {action.column}.")

    def _drop(self, column: int, piece: int) -> None:
        for row in reversed(self._board):
            if row[column] == 0:
                row[column] = piece
                return

    def _legal(self) -> list[int]:
        return [c for c in range(COLS) if self._board[0][c] == 0]

    def _observe(self, message: str) -> DropObservation:
        heights = [[sum(1 for row in self._board if row[c]) for c in range(COLS)]]
        return DropObservation(
            board=[list(row) for row in self._board],
            legal_actions=self._legal(),
            message=message,
            reward=0.0,
            done=not self._legal(),
            metadata={"heights": json.dumps(heights)},
        )

    @property
    def state(self) -> State:
        return self._state


app = create_app(
    DropEnvironment,
    DropAction,
    DropObservation,
    env_name="drop_four",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
)
