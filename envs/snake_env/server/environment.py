"""Classic snake: steer the head, eat food to grow, die on a wall or on your own body.

Actions: ``SnakeAction(action="UP" | "DOWN" | "LEFT" | "RIGHT")`` sets the head's direction and
moves one cell. Turning straight back into the neck is an illegal move (see
``openenv.core.rules``): refused by default, so a stray key press never kills the snake.

Rewards (reset options) come from a rubric (``rubrics.py``): ``food_reward`` (+1.0) for eating,
``death_reward`` (-1.0) for hitting a wall or the body, ``step_reward`` (0.0) for any other move;
``metadata["reward_components"]`` says which one it was. The episode ends on death, when the
board is full (a win), or after ``max_steps``.

Other reset options: ``width`` and ``height`` (5 to 30), ``view_radius`` (0, the default: the
whole board is observed; r from 1 to 30: only the (2r+1)×(2r+1) window around the head),
``illegal_move``.
"""

from __future__ import annotations

import uuid
from collections import deque
from typing import Annotated

from pydantic import Field

from openenv.core import ActionChoice, Board, Cell, Environment
from openenv.core.rules import IllegalMovePolicy, check_policy, illegal_move
from snake_env.models import (
    BODY,
    EMPTY,
    FOOD,
    HEAD,
    OUTSIDE,
    Direction,
    SnakeAction,
    SnakeObservation,
    SnakeState,
)
from snake_env.server.rubrics import snake_rubric

Pos = tuple[int, int]
MIN_SIZE, MAX_SIZE = 5, 30
# What a visitor may make an episode cost; a view radius of MAX_SIZE sees any board whole.
MAX_VIEW_RADIUS = MAX_SIZE
MAX_STEPS = 100_000
Size = Annotated[int, Field(ge=MIN_SIZE, le=MAX_SIZE)]
_DELTAS = {
    Direction.UP: (0, -1),
    Direction.DOWN: (0, 1),
    Direction.LEFT: (-1, 0),
    Direction.RIGHT: (1, 0),
}
_OPPOSITE = {
    Direction.UP: Direction.DOWN,
    Direction.DOWN: Direction.UP,
    Direction.LEFT: Direction.RIGHT,
    Direction.RIGHT: Direction.LEFT,
}
_BUTTONS = {
    Direction.UP: ("↑ Up", "ArrowUp"),
    Direction.DOWN: ("↓ Down", "ArrowDown"),
    Direction.LEFT: ("← Left", "ArrowLeft"),
    Direction.RIGHT: ("→ Right", "ArrowRight"),
}


class SnakeEnvironment(Environment[SnakeAction, SnakeObservation, SnakeState]):
    """Snake; one instance per session."""

    how_to_play = (
        "Press ▶ Real time and steer with the arrow keys: eat the food 🍎 to grow, avoid "
        "the walls and your own tail."
    )
    legend = {
        "🟢": "head",
        "🍎": "food",
        "💥": "crash",
    }

    render_fps = 8  # one tick a step: real-time play and autoplay at eight moves a second

    def __init__(self) -> None:
        self._state = SnakeState()
        self._body: deque[Pos] = deque()
        self._food: Pos | None = None
        self._crash: Pos | None = None
        self._options: dict = {}
        self._policy = check_policy("refuse")
        self._outcome = "step"  # what the last step did: a component of snake_rubric
        self.rubric = snake_rubric(lambda: self._outcome)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        width: Size = 10,
        height: Size = 10,
        view_radius: Annotated[
            int, Field(ge=0, le=MAX_VIEW_RADIUS, description="0: the whole board")
        ] = 0,
        food_reward: float = 1.0,
        death_reward: float = -1.0,
        step_reward: float = 0.0,
        max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] = 1000,
        illegal_move: IllegalMovePolicy = "refuse",
    ) -> SnakeObservation:
        self._policy = check_policy(illegal_move)
        self._options = {"view_radius": view_radius, "max_steps": max_steps}
        self.rubric = snake_rubric(
            lambda: self._outcome, food=food_reward, death=death_reward, step=step_reward
        )
        head = (width // 2, height // 2)
        self._body = deque((head[0] - i, head[1]) for i in range(3))
        self._crash = None
        self._state = SnakeState(
            episode_id=episode_id or str(uuid.uuid4()), width=width, height=height
        )
        self._food = self._place_food()
        self._sync_state()
        return self._observe("Eat the food 🍎; avoid the walls and your own tail.")

    def step(self, action: SnakeAction) -> SnakeObservation:
        direction = Direction(action.action)
        s = self._state
        if direction == _OPPOSITE[s.direction]:
            reason = f"the snake heads {s.direction.value}: it cannot turn straight back"
            meta = illegal_move(self._policy, reason)
            s.step_count += 1
            return self._finish("illegal_move", reason, done=True, metadata=meta)
        s.step_count += 1
        s.direction = direction
        head = self._body[0]
        dc, dr = _DELTAS[direction]
        target = (head[0] + dc, head[1] + dr)
        if self._kills(target):
            self._crash = target
            s.alive = False
            what = "a wall" if not self._inside(target) else "its own body"
            return self._finish("death", f"The snake hit {what}.", True)
        return self._advance(target)

    @property
    def state(self) -> SnakeState:
        return self._state

    def legal_actions(self) -> list[ActionChoice]:
        if not self._body:
            return []
        ahead = self._state.direction  # what real-time play steps while no key is held
        return [
            ActionChoice(_BUTTONS[d][0], {"action": d.value}, key=_BUTTONS[d][1], idle=d == ahead)
            for d in self._legal_directions()
        ]

    def render(self) -> Board | None:
        if not self._body:
            return None
        s = self._state
        rows = [[self._cell((c, r)) for c in range(s.width)] for r in range(s.height)]
        caption = (
            f"Length {len(self._body)} · food eaten {s.episode_fruits} · "
            f"step {s.step_count} of {self._options['max_steps']}"
        )
        legend = {"🟢": "head", "🍎": "food", "💥": "crash"}
        return Board(rows, legend=legend, caption=caption)

    # -- internals ------------------------------------------------------------------------

    def _advance(self, target: Pos) -> SnakeObservation:
        s = self._state
        self._body.appendleft(target)
        if target != self._food:
            self._body.pop()
            return self._finish("step", f"Moved {s.direction.value}.")
        s.episode_fruits += 1
        self._food = self._place_food()
        if self._food is None:
            return self._finish("food", "The board is full: you win!", True)
        return self._finish("food", "Yum! The snake grows.")

    def _finish(
        self, outcome: str, message: str, done: bool = False, metadata: dict | None = None
    ) -> SnakeObservation:
        """The step's observation; ``outcome`` is the rubric component that scores it."""
        s = self._state
        self._outcome = outcome
        s.episode_score += self.rubric.weights[outcome]  # the reward the rubric will give
        if not done and s.step_count >= self._options["max_steps"]:
            done, message = True, f"{message} Time is up ({s.step_count} steps)."
        self._sync_state()
        return self._observe(message, done=done, metadata=metadata)

    def _kills(self, target: Pos) -> bool:
        if not self._inside(target):
            return True
        body = list(self._body)
        # The tail moves away this step unless the snake eats.
        blocking = body if target == self._food else body[:-1]
        return target in blocking

    def _inside(self, pos: Pos) -> bool:
        return 0 <= pos[0] < self._state.width and 0 <= pos[1] < self._state.height

    def _place_food(self) -> Pos | None:
        s = self._state
        taken = set(self._body)
        free = [(c, r) for r in range(s.height) for c in range(s.width) if (c, r) not in taken]
        return self.rng.choice(free) if free else None

    def _legal_directions(self) -> list[Direction]:
        return [d for d in Direction if d != _OPPOSITE[self._state.direction]]

    def _code(self, pos: Pos) -> int:
        if not self._inside(pos):
            return OUTSIDE
        if pos == self._body[0]:
            return HEAD
        if pos in self._body:
            return BODY
        return FOOD if pos == self._food else EMPTY

    def _view(self) -> list[list[int]]:
        s = self._state
        radius = self._options["view_radius"]
        if radius == 0:
            return [[self._code((c, r)) for c in range(s.width)] for r in range(s.height)]
        hc, hr = self._body[0]
        return [
            [self._code((c, r)) for c in range(hc - radius, hc + radius + 1)]
            for r in range(hr - radius, hr + radius + 1)
        ]

    def _sync_state(self) -> None:
        s = self._state
        s.body = [list(p) for p in self._body]
        s.food = list(self._food) if self._food is not None else None

    def _observe(
        self, message: str, done: bool = False, metadata: dict | None = None
    ) -> SnakeObservation:
        s = self._state
        return SnakeObservation(
            grid=self._view(),
            direction=s.direction,
            length=len(self._body),
            alive=s.alive,
            legal_actions=[] if done else self._legal_directions(),
            episode_score=round(s.episode_score, 6),
            episode_steps=s.step_count,
            episode_fruits=s.episode_fruits,
            message=message,
            reward=0.0,  # on steps the base class puts the rubric's score here
            done=done,
            metadata=metadata or {},
        )

    def _cell(self, pos: Pos) -> Cell:
        seen = self._in_view(pos)
        if pos == self._crash:
            return Cell("💥", background="#fecaca", label="crash")
        code = self._code(pos)
        if code == HEAD:
            return Cell("🟢", background="#166534", label="head")
        if code == BODY:
            return Cell("", background="#22c55e", label="body")
        if code == FOOD:
            return Cell("🍎", background="#f8fafc" if seen else "#cbd5e1", label="food")
        return Cell("", background="#f8fafc" if seen else "#cbd5e1")

    def _in_view(self, pos: Pos) -> bool:
        radius = self._options["view_radius"]
        if radius == 0:
            return True
        hc, hr = self._body[0]
        return abs(pos[0] - hc) <= radius and abs(pos[1] - hr) <= radius
