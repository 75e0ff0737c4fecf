"""A deterministic 5×5 grid world: walk from (0, 0) to the goal at (4, 4).

Actions: UP/DOWN move along x (rows), LEFT/RIGHT along y (columns); a move off the grid leaves
the agent in place. Reward: -0.1 per step, +1.0 on reaching the goal, which ends the episode.
There is no step limit.
"""

from __future__ import annotations

import uuid

from grid_world_env.models import GridWorldAction, GridWorldObservation, GridWorldState, MoveAction
from openenv.core import ActionChoice, Board, Cell, Environment

SIZE = 5
GOAL = (SIZE - 1, SIZE - 1)
STEP_REWARD = -0.1
GOAL_REWARD = 1.0
_MOVES = {
    MoveAction.UP: (-1, 0, "ArrowUp", "↑ Up"),
    MoveAction.DOWN: (1, 0, "ArrowDown", "↓ Down"),
    MoveAction.LEFT: (0, -1, "ArrowLeft", "← Left"),
    MoveAction.RIGHT: (0, 1, "ArrowRight", "→ Right"),
}


class GridWorldEnvironment(Environment[GridWorldAction, GridWorldObservation, GridWorldState]):
    how_to_play = (
        "Walk the robot 🤖 to the flag 🏁 with the arrow keys or the buttons; each move "
        "costs a little, the goal pays."
    )
    legend = {
        "🤖": "you",
        "🏁": "goal",
    }
    render_fps = 4  # frames per second of its autoplay and videos

    def __init__(self) -> None:
        self._state = GridWorldState()

    def reset(self, seed=None, episode_id=None) -> GridWorldObservation:
        self._state = GridWorldState(episode_id=episode_id or str(uuid.uuid4()))
        return self._observe(f"Welcome to Grid World! Goal is at [{GOAL[0]}, {GOAL[1]}].")

    def step(self, action: GridWorldAction) -> GridWorldObservation:
        dx, dy, _, _ = _MOVES[MoveAction(action.action)]
        s = self._state
        s.x = min(max(s.x + dx, 0), SIZE - 1)
        s.y = min(max(s.y + dy, 0), SIZE - 1)
        s.step_count += 1
        if (s.x, s.y) == GOAL:
            return self._observe("You reached the goal!", reward=GOAL_REWARD, done=True)
        return self._observe(f"Moved {action.action.value}.", reward=STEP_REWARD)

    @property
    def state(self) -> GridWorldState:
        return self._state

    def render(self) -> Board:
        def cell(x: int, y: int) -> Cell:
            if (x, y) == (self._state.x, self._state.y):
                return Cell("🤖", background="#dbeafe", label="agent")
            if (x, y) == GOAL:
                return Cell("🏁", background="#dcfce7", label="goal")
            return Cell("", background="#f8fafc")

        rows = [[cell(x, y) for y in range(SIZE)] for x in range(SIZE)]
        return Board(rows, legend={"🤖": "agent", "🏁": "goal"})

    def legal_actions(self) -> list[ActionChoice]:
        return [
            ActionChoice(label, {"action": move.value}, key=key)
            for move, (_, _, key, label) in _MOVES.items()
        ]

    def _observe(
        self, message: str, reward: float = 0.0, done: bool = False
    ) -> GridWorldObservation:
        s = self._state
        return GridWorldObservation(x=s.x, y=s.y, message=message, reward=reward, done=done)
