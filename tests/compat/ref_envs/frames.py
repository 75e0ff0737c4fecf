"""A tiny seeded "catch" game that sends its screen as the reference Atari env does: a FLAT
list ``screen`` of H*W*3 bytes with ``screen_shape`` = [H, W, 3], plus ``legal_actions`` and
``action_meanings``; the action is ``action_id`` (written against ``openenv==0.10.0``).

Why: the playground must recognise a flat pixel list plus its shape as a frame, and name the
buttons of ``legal_actions`` with ``action_meanings``.

- Action ``{"action_id": int}``: 0 NOOP, 1 LEFT, 2 RIGHT (the paddle moves 2 px). An id outside
  ``legal_actions`` makes ``step`` raise ``ValueError``, as the reference Atari env does; the
  reference answers ``{"type": "error", "data": {"message": "action_id 7 is not one of the
  legal actions [0, 1, 2]", "code": "EXECUTION_ERROR"}}`` and the session goes on. A non-integer
  is a ``VALIDATION_ERROR``.
- Observation ``screen`` (H*W*3 = 24*32*3 values 0..255, row-major RGB), ``screen_shape``
  ``[24, 32, 3]``, ``legal_actions`` ``[0, 1, 2]``, ``action_meanings``, ``balls_left``.
- A ball (yellow) falls one row per step from a column drawn by ``random.Random(seed)``; the
  paddle (blue, 6 px) is on the bottom row. When the ball reaches it (23 steps): +1.0 for a
  catch, -1.0 for a miss, else 0.0 per step; done after three balls. Reset reward 0.0.
"""

import os
import random
from uuid import uuid4

from pydantic import Field

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State

H, W, PADDLE = 24, 32, 6
MEANINGS = ["NOOP", "LEFT", "RIGHT"]
BALLS = 3


class CatchAction(Action):
    action_id: int = Field(description="Index into legal_actions")


class CatchObservation(Observation):
    screen: list[int] = Field(default_factory=list)
    screen_shape: list[int] = Field(default_factory=lambda: [H, W, 3])
    legal_actions: list[int] = Field(default_factory=lambda: [0, 1, 2])
    action_meanings: list[str] = Field(default_factory=lambda: list(MEANINGS))
    balls_left: int = BALLS


class CatchEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self._state = State(episode_id=str(uuid4()))
        self._rng = random.Random(0)

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs
    ) -> CatchObservation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        self._rng = random.Random(seed)
        self._paddle, self._left = W // 2 - PADDLE // 2, BALLS
        self._drop()
        return self._observe(0.0)

    def _drop(self) -> None:
        self._ball = [0, self._rng.randrange(W)]

    def step(
        self, action: CatchAction, timeout_s: float | None = None, **kwargs
    ) -> CatchObservation:
        if action.action_id not in range(len(MEANINGS)):
            raise ValueError(
                f"action_id {action.action_id} is not one of the legal actions [0, 1, 2]"
            )
        self._state.step_count += 1
        self._paddle = min(max(self._paddle + (0, -2, 2)[action.action_id], 0), W - PADDLE)
        self._ball[0] += 1
        reward = 0.0
        if self._ball[0] == H - 1:
            reward = 1.0 if self._paddle <= self._ball[1] < self._paddle + PADDLE else -1.0
            self._left -= 1
            self._drop()
        return self._observe(reward, done=self._left == 0)

    def _observe(self, reward: float, done: bool = False) -> CatchObservation:
        screen = [0] * (H * W * 3)

        def paint(r: int, c: int, rgb: list[int]) -> None:
            screen[(r * W + c) * 3 : (r * W + c) * 3 + 3] = rgb

        for c in range(self._paddle, self._paddle + PADDLE):
            paint(H - 1, c, [80, 160, 255])
        paint(*self._ball, [255, 200, 40])
        return CatchObservation(screen=screen, balls_left=self._left, reward=reward, done=done)

    @property
    def state(self) -> State:
        return self._state


app = create_app(
    CatchEnvironment,
    CatchAction,
    CatchObservation,
    env_name="ref_catch",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
)
