"""2048 on a 4×4 board: slide the tiles, merge equal neighbours, reach the target tile.

Actions: ``Game2048Action(action="UP" | "DOWN" | "LEFT" | "RIGHT")``. After every move that
changes the board, the game adds a tile (2, or 4 one time in ten) on a random empty cell; the
observation's ``spawned`` says where. A move that changes nothing is an illegal move (see
``openenv.core.rules``): refused by default.

Reward: the score increase of the move (the sum of the tiles merged by it). The episode ends
when no move changes the board, or when a tile reaches ``target`` (``won=True``).

Reset options: ``target`` (a power of two from 8 to 65536, default 2048; 0 plays on until the
board locks up), ``illegal_move``.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from pydantic import Field

from game_2048_env.models import Direction, Game2048Action, Game2048Observation, Game2048State
from game_2048_env.server.tiles import SIZE, Grid, legal_directions, slide
from openenv.core import ActionChoice, Board, Cell, Environment, InvalidAction
from openenv.core.rules import (
    ILLEGAL_MOVE_PENALTY,
    IllegalMovePolicy,
    check_policy,
    illegal_move,
)

FOUR_PROBABILITY = 0.1
MAX_TARGET = 65536
# The classic 2048 palette: (background, text colour) per tile value.
PALETTE = {
    0: ("#cdc1b4", "#776e65"),
    2: ("#eee4da", "#776e65"),
    4: ("#ede0c8", "#776e65"),
    8: ("#f2b179", "#f9f6f2"),
    16: ("#f59563", "#f9f6f2"),
    32: ("#f67c5f", "#f9f6f2"),
    64: ("#f65e3b", "#f9f6f2"),
    128: ("#edcf72", "#f9f6f2"),
    256: ("#edcc61", "#f9f6f2"),
    512: ("#edc850", "#f9f6f2"),
    1024: ("#edc53f", "#f9f6f2"),
    2048: ("#edc22e", "#f9f6f2"),
}
BEYOND = ("#3c3a32", "#f9f6f2")
_BUTTONS = {
    Direction.UP: ("↑ Up", "ArrowUp"),
    Direction.DOWN: ("↓ Down", "ArrowDown"),
    Direction.LEFT: ("← Left", "ArrowLeft"),
    Direction.RIGHT: ("→ Right", "ArrowRight"),
}


class Game2048Environment(Environment[Game2048Action, Game2048Observation, Game2048State]):
    """2048; one instance per session."""

    how_to_play = (
        "Slide the tiles with the arrow keys, a swipe or the buttons: equal tiles merge "
        "and add to your score. Reach 2048."
    )

    render_fps = 4  # frames per second of its autoplay and videos

    def __init__(self) -> None:
        self._state = Game2048State()
        self._policy = check_policy("refuse")

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        target: Annotated[int, Field(ge=0, le=MAX_TARGET)] = 2048,
        illegal_move: IllegalMovePolicy = "refuse",
    ) -> Game2048Observation:
        _check_target(target)
        self._policy = check_policy(illegal_move)
        board = [[0] * SIZE for _ in range(SIZE)]
        self._state = Game2048State(
            episode_id=episode_id or str(uuid.uuid4()), board=board, target=target
        )
        self._spawn()
        spawned = self._spawn()
        return self._observe("Slide the tiles with the arrow keys.", spawned=spawned)

    def step(self, action: Game2048Action) -> Game2048Observation:
        s = self._state
        direction = Direction(action.action)
        board, points = slide(s.board, direction)
        if board == s.board:
            meta = illegal_move(self._policy, f"sliding {direction.value} changes nothing")
            s.step_count += 1
            return self._observe(meta["illegal_move"], ILLEGAL_MOVE_PENALTY, True, meta=meta)
        s.step_count += 1
        s.board, s.score = board, s.score + points
        spawned = self._spawn()
        # s.board, not board: pydantic copies lists on assignment and _spawn wrote to the copy.
        s.won = s.target > 0 and _max_tile(s.board) >= s.target
        if s.won:
            return self._observe(f"You made {s.target}!", points, True, spawned)
        if not legal_directions(s.board):
            return self._observe("No move left: game over.", points, True, spawned)
        merged = f" (+{points})" if points else ""
        return self._observe(f"Slid {direction.value}{merged}.", points, spawned=spawned)

    @property
    def state(self) -> Game2048State:
        return self._state

    def legal_actions(self) -> list[ActionChoice]:
        if not self._state.board:
            return []
        return [
            ActionChoice(_BUTTONS[d][0], {"action": d.value}, key=_BUTTONS[d][1])
            for d in legal_directions(self._state.board)
        ]

    def render(self) -> Board | None:
        s = self._state
        if not s.board:
            return None
        rows = [[_tile(value) for value in row] for row in s.board]
        goal = f" · target {s.target}" if s.target else ""
        return Board(rows, caption=f"Score {s.score}{goal}")

    # -- internals ------------------------------------------------------------------------

    def _spawn(self) -> list[int] | None:
        board = self._state.board
        empty = [(r, c) for r in range(SIZE) for c in range(SIZE) if board[r][c] == 0]
        if not empty:
            return None
        row, col = self.rng.choice(empty)
        value = 4 if self.rng.random() < FOUR_PROBABILITY else 2
        board[row][col] = value
        return [row, col, value]

    def _observe(
        self,
        message: str,
        reward: float = 0.0,
        done: bool = False,
        spawned: list[int] | None = None,
        meta: dict | None = None,
    ) -> Game2048Observation:
        s = self._state
        return Game2048Observation(
            board=[row[:] for row in s.board],
            score=s.score,
            max_tile=_max_tile(s.board),
            legal_actions=[] if done else legal_directions(s.board),
            spawned=spawned,
            won=s.won,
            message=message,
            reward=reward,
            done=done,
            metadata=meta or {},
        )


def _tile(value: int) -> Cell:
    background, colour = PALETTE.get(value, BEYOND)
    return Cell(str(value) if value else "", color=colour, background=background)


def _max_tile(board: Grid) -> int:
    return max(max(row) for row in board)


def _check_target(target: int) -> None:
    if target == 0:
        return
    if target < 8 or target & (target - 1):  # the annotation holds it to 0..MAX_TARGET
        raise InvalidAction(
            f"target must be a power of two from 8 to {MAX_TARGET} (or 0 for no target); "
            f"got {target}"
        )
