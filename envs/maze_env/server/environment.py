"""An 8×8 gridworld maze: walk from the start to the exit; walls block.

Actions: ``MazeAction(action=0..3)`` for up, down, left, right. A move into a wall or off the
board is an illegal move (see ``openenv.core.rules``). Reward: -0.05 per move, -0.25 for a move
onto a cell already visited, +10.0 on reaching the exit, which ends the episode (``status="win"``).
Running out of ``max_steps`` ends it with ``status="lose"``.

Reset options: ``layout`` (a built-in name or ``"random"`` for a seeded maze), ``max_steps``,
``illegal_move`` (``"refuse"`` or ``"end"``).
"""

from __future__ import annotations

import uuid
from typing import Annotated

from pydantic import Field

from maze_env.models import (
    ACTION_NAMES,
    DOWN,
    LEFT,
    RIGHT,
    UP,
    MazeAction,
    MazeObservation,
    MazeState,
)
from maze_env.server.layouts import Layout, LayoutName, load
from openenv.core import ActionChoice, Board, Cell, Environment, ResetNeeded
from openenv.core.rules import (
    ILLEGAL_MOVE_PENALTY,
    IllegalMovePolicy,
    check_policy,
    illegal_move,
)

MOVE_REWARD = -0.05
REVISIT_REWARD = -0.25
EXIT_REWARD = 10.0
MAX_STEPS = 100_000  # moves a visitor may ask an episode to last
_DELTAS = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}
_BUTTONS = {
    UP: ("↑ Up", "ArrowUp"),
    DOWN: ("↓ Down", "ArrowDown"),
    LEFT: ("← Left", "ArrowLeft"),
    RIGHT: ("→ Right", "ArrowRight"),
}


class MazeEnvironment(Environment[MazeAction, MazeObservation, MazeState]):
    """The maze; one instance per session."""

    how_to_play = "Find the exit 🏁: move with the arrow keys or the buttons; walls block you."
    legend = {
        "🤖": "you",
        "🏁": "exit",
        "·": "visited",
    }

    render_fps = 8  # frames per second of its autoplay and videos

    def __init__(self) -> None:
        self._state = MazeState()
        self._layout: Layout | None = None
        self._pos = (0, 0)
        self._visited: set[tuple[int, int]] = set()
        self._max_steps = 100
        self._policy = check_policy("refuse")

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        layout: LayoutName = "classic",
        max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] = 100,
        illegal_move: IllegalMovePolicy = "refuse",
    ) -> MazeObservation:
        self._policy = check_policy(illegal_move)
        self._layout = load(layout, self.rng)
        self._max_steps = max_steps
        self._pos = self._layout.start
        self._visited = {self._pos}
        self._state = MazeState(
            episode_id=episode_id or str(uuid.uuid4()), layout=self._layout.name
        )
        self._sync_state("playing")
        return self._observe(f"Find the exit at {list(self._layout.exit)}.", previous=None)

    def step(self, action: MazeAction) -> MazeObservation:
        move = action.action
        if move not in self.legal_moves():
            reason = self._why_illegal(move)
            meta = illegal_move(self._policy, reason)
            self._state.step_count += 1
            self._sync_state("lose", done=True)
            return self._observe(reason, self._pos, ILLEGAL_MOVE_PENALTY, metadata=meta)
        return self._move(move)

    @property
    def state(self) -> MazeState:
        return self._state

    def legal_moves(self) -> list[int]:
        """Moves (0..3) that stay on the board and do not hit a wall."""
        col, row = self._pos
        layout = self._require_layout()
        return [m for m, (dc, dr) in _DELTAS.items() if layout.is_open(col + dc, row + dr)]

    def legal_actions(self) -> list[ActionChoice]:
        if self._layout is None:
            return []
        return [
            ActionChoice(_BUTTONS[m][0], {"action": m}, key=_BUTTONS[m][1])
            for m in self.legal_moves()
        ]

    def render(self) -> Board | None:
        if self._layout is None:
            return None
        layout = self._layout
        rows = [
            [self._cell(col, row) for col in range(len(layout.walls[0]))]
            for row in range(len(layout.walls))
        ]
        legend = {"🤖": "agent", "🏁": "exit", "·": "visited"}
        caption = f"Layout {layout.name}: step {self._state.step_count} of {self._max_steps}"
        return Board(rows, legend=legend, caption=caption)

    # -- internals ------------------------------------------------------------------------

    def _move(self, move: int) -> MazeObservation:
        layout = self._require_layout()
        previous = self._pos
        dc, dr = _DELTAS[move]
        self._pos = (previous[0] + dc, previous[1] + dr)
        revisit = self._pos in self._visited
        self._visited.add(self._pos)
        self._state.step_count += 1
        if self._pos == layout.exit:
            self._sync_state("win", done=True)
            return self._observe("You reached the exit!", previous, EXIT_REWARD)
        reward = REVISIT_REWARD if revisit else MOVE_REWARD
        if self._state.step_count >= self._max_steps:
            self._sync_state("lose", done=True)
            return self._observe(f"Out of steps ({self._max_steps}).", previous, reward)
        self._sync_state("playing")
        note = " (visited before)" if revisit else ""
        return self._observe(f"Moved {ACTION_NAMES[move]}{note}.", previous, reward)

    def _why_illegal(self, move: int) -> str:
        if move not in _DELTAS:
            return f"action {move} is not a move; use 0 (up), 1 (down), 2 (left) or 3 (right)"
        col, row = self._pos
        dc, dr = _DELTAS[move]
        target = (col + dc, row + dr)
        size = len(self._require_layout().walls)
        if not (0 <= target[0] < size and 0 <= target[1] < size):
            return f"moving {ACTION_NAMES[move]} from {list(self._pos)} leaves the maze"
        return f"moving {ACTION_NAMES[move]} from {list(self._pos)} hits a wall"

    def _sync_state(self, status: str, done: bool = False) -> None:
        layout = self._require_layout()
        s = self._state
        s.current_position = list(self._pos)
        s.exit_cell = list(layout.exit)
        s.status = status
        s.done = done

    def _observe(
        self,
        message: str,
        previous: tuple[int, int] | None,
        reward: float = 0.0,
        metadata: dict | None = None,
    ) -> MazeObservation:
        layout = self._require_layout()
        return MazeObservation(
            current_position=list(self._pos),
            previous_position=list(previous) if previous is not None else None,
            exit_cell=list(layout.exit),
            legal_actions=self.legal_moves(),
            maze=layout.grid(),
            status=self._state.status,
            message=message,
            reward=reward,
            done=self._state.done,
            metadata=metadata or {},
        )

    def _cell(self, col: int, row: int) -> Cell:
        layout = self._require_layout()
        if (col, row) == self._pos:
            return Cell("🤖", background="#dbeafe", label="agent")
        if (col, row) == layout.exit:
            return Cell("🏁", background="#dcfce7", label="exit")
        if layout.walls[row][col]:
            return Cell("", background="#334155", label="wall")
        if (col, row) in self._visited:
            return Cell("·", color="#64748b", background="#f1f5f9", label="visited")
        return Cell("", background="#f8fafc")

    def _require_layout(self) -> Layout:
        if self._layout is None:
            raise ResetNeeded("call reset() to build the maze first")
        return self._layout
