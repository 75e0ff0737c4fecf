"""A 5×5 grid walk whose action is a ``Literal`` (written against ``openenv==0.10.0``).

Why: the playground must turn a ``Literal`` field (an ``enum`` in the JSON schema) into one
button per value, and draw a multi-line ASCII ``board`` it knows nothing about.

- Action ``{"move": "up" | "down" | "left" | "right"}``; up/down change the row, left/right the
  column. Any other value is refused by pydantic before the env sees it: the reference answers
  ``{"type": "error", "data": {"message": "Invalid message", "code": "VALIDATION_ERROR",
  "errors": [{"loc": ["move"], "type": "literal_error", ...}]}}`` and the session goes on.
- Observation ``board`` (5 lines of 5 chars: ``A`` agent, ``G`` goal, ``.`` empty),
  ``position`` ``[row, col]``, ``message``.
- Start (0, 0), goal (4, 4). Reset reward 0.0; -0.1 per step (a move into a wall stays put),
  +1.0 and done at the goal. No randomness: ``seed`` is accepted and changes nothing.
"""

import os
from typing import Literal
from uuid import uuid4

from pydantic import Field

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State

SIZE = 5
MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


class WalkAction(Action):
    move: Literal["up", "down", "left", "right"] = Field(description="Where to go")


class WalkObservation(Observation):
    board: str = ""
    position: list[int] = Field(default_factory=lambda: [0, 0])
    message: str = ""


class WalkEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self._state = State(episode_id=str(uuid4()))
        self._pos = [0, 0]

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs
    ) -> WalkObservation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        self._pos = [0, 0]
        return self._observe("Walk to G.", 0.0, False)

    def step(self, action: WalkAction, timeout_s: float | None = None, **kwargs) -> WalkObservation:
        dr, dc = MOVES[action.move]
        self._pos = [
            min(max(self._pos[0] + dr, 0), SIZE - 1),
            min(max(self._pos[1] + dc, 0), SIZE - 1),
        ]
        self._state.step_count += 1
        if self._pos == [SIZE - 1, SIZE - 1]:
            return self._observe("You reached the goal!", 1.0, True)
        return self._observe(f"Moved {action.move}.", -0.1, False)

    def _observe(self, message: str, reward: float, done: bool) -> WalkObservation:
        rows = [
            "".join(
                "A" if [r, c] == self._pos else "G" if (r, c) == (4, 4) else "."
                for c in range(SIZE)
            )
            for r in range(SIZE)
        ]
        return WalkObservation(
            board="\n".join(rows),
            position=list(self._pos),
            message=message,
            reward=reward,
            done=done,
        )

    @property
    def state(self) -> State:
        return self._state


app = create_app(
    WalkEnvironment,
    WalkAction,
    WalkObservation,
    env_name="literal_grid",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
)
