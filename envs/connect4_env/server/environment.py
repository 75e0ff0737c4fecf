"""Connect Four on a 6×7 board: drop pieces, connect four in a row to win.

The agent plays 1 (red) against a built-in opponent playing -1 (yellow), which replies inside
the same ``step``; the observation's ``opponent_column`` says where it played. With
``opponent="human"`` nobody replies: two people take turns on one screen, 1 then -1.

Actions: ``Connect4Action(column=0..6)``. A full or out-of-range column is an illegal move (see
``openenv.core.rules``): refused by default; with ``illegal_move="end"`` it ends the episode
with reward -1 as the OpenEnv docs describe.

Rewards, from the agent's side: +1 win, -1 loss, 0 draw, 0 while the game goes on. Against a
human, the reward belongs to the player who just moved (+1 for the winning move).

Reset options: ``opponent`` (``"random"``, ``"search"`` or ``"human"``), ``depth`` (plies the
search opponent looks ahead, 1 to 6), ``agent_starts`` (False: the opponent opens),
``illegal_move``.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Literal, get_args

from pydantic import Field

from connect4_env.models import Connect4Action, Connect4Observation, Connect4State
from connect4_env.server.board import (
    COLUMNS,
    ROWS,
    drop,
    is_full,
    legal_columns,
    new_board,
    winning_cells,
    wins,
)
from connect4_env.server.search import best_column
from openenv.core import ActionChoice, Board, Cell, Environment, InvalidAction
from openenv.core.rules import (
    ILLEGAL_MOVE_PENALTY,
    IllegalMovePolicy,
    check_policy,
    illegal_move,
)

Opponent = Literal["random", "search", "human"]
OPPONENTS: tuple[str, ...] = get_args(Opponent)
MAX_DEPTH = 6
WIN_REWARD, LOSS_REWARD, DRAW_REWARD = 1.0, -1.0, 0.0
_NAMES = {1: "Red", -1: "Yellow"}
_COLOURS = {1: "#ef4444", -1: "#facc15"}


class Connect4Environment(Environment[Connect4Action, Connect4Observation, Connect4State]):
    """Connect Four; one instance per session."""

    how_to_play = (
        "You are red: click a column (or press 1–7) to drop a disc. Four in a row — "
        "across, down or diagonal — wins."
    )
    legend = {
        "#dc2626": "you (red)",
        "#facc15": "the opponent (yellow)",
    }

    render_fps = 2  # frames per second of its autoplay and videos
    sides = (_NAMES[1], _NAMES[-1])  # the playground's "you play": red moves first

    def __init__(self) -> None:
        self._state = Connect4State()
        self._opponent = "random"
        self._depth = 4
        self._policy = check_policy("refuse")

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        opponent: Opponent = "random",
        depth: Annotated[int, Field(ge=1, le=MAX_DEPTH)] = 4,
        agent_starts: bool = True,
        illegal_move: IllegalMovePolicy = "refuse",
    ) -> Connect4Observation:
        if opponent not in OPPONENTS:
            raise InvalidAction(f"opponent must be one of {', '.join(OPPONENTS)}; got {opponent!r}")
        self._policy = check_policy(illegal_move)
        self._opponent, self._depth = opponent, depth
        self._state = Connect4State(
            episode_id=episode_id or str(uuid.uuid4()), board=new_board(), opponent=opponent
        )
        if agent_starts or opponent == "human":
            return self._observe("Red to move: pick a column.")
        column = self._opponent_move()
        return self._observe("Yellow opened; your move.", opponent_column=column)

    def step(self, action: Connect4Action) -> Connect4Observation:
        s = self._state
        column, mover = action.column, s.next_player
        if column not in legal_columns(s.board):
            meta = illegal_move(self._policy, self._why_illegal(column))
            s.step_count += 1
            return self._observe(meta["illegal_move"], ILLEGAL_MOVE_PENALTY, True, meta=meta)
        s.step_count += 1
        if self._play(column, mover):
            return self._observe(f"{_NAMES[mover]} connects four!", WIN_REWARD, True, column)
        if is_full(s.board):
            return self._draw(column)
        if self._opponent == "human":
            s.next_player = -mover
            return self._observe(f"{_NAMES[-mover]} to move.", last=column)
        return self._reply(column)

    @property
    def state(self) -> Connect4State:
        return self._state

    def legal_actions(self) -> list[ActionChoice]:
        if not self._state.board or self._state.winner is not None:
            return []
        return [
            ActionChoice(f"Column {c + 1}", {"column": c}, key=str(c + 1))
            for c in legal_columns(self._state.board)
        ]

    def render(self) -> Board | None:
        board = self._state.board
        if not board:
            return None
        line = winning_cells(board)
        last = self._last_cell()
        # a click anywhere in a column that takes a disc drops one there
        open_columns = {a.action["column"] for a in self.legal_actions()}
        rows = [
            [
                self._cell(r, c, (r, c) in line, (r, c) == last, c in open_columns)
                for c in range(COLUMNS)
            ]
            for r in range(ROWS)
        ]
        legend = {"●": "red: you (player 1); yellow: the opponent (player 2)"}
        return Board(rows, legend=legend, caption=self._caption())

    # -- internals ------------------------------------------------------------------------

    def _play(self, column: int, player: int) -> bool:
        """Drop a piece; True when it wins."""
        s = self._state
        row = drop(s.board, column, player)
        s.moves.append(column)
        if wins(s.board, row, column):
            s.winner = player
            return True
        return False

    def _reply(self, column: int) -> Connect4Observation:
        s = self._state
        reply = self._opponent_move()
        if s.winner == -1:
            msg = f"Yellow played column {reply + 1} and connects four."
            return self._observe(msg, LOSS_REWARD, True, column, reply)
        if is_full(s.board):
            return self._draw(column, reply)
        msg = f"Yellow played column {reply + 1}; your move."
        return self._observe(msg, last=column, opponent_column=reply)

    def _opponent_move(self) -> int:
        board = self._state.board
        if self._opponent == "search":
            column = best_column([row[:] for row in board], -1, self._depth)
        else:
            column = self.rng.choice(legal_columns(board))
        self._play(column, -1)
        return column

    def _draw(self, column: int, reply: int | None = None) -> Connect4Observation:
        self._state.winner = 0
        return self._observe("The board is full: a draw.", DRAW_REWARD, True, column, reply)

    def _why_illegal(self, column: int) -> str:
        if not 0 <= column < COLUMNS:
            return f"column {column} does not exist; play 0 to {COLUMNS - 1}"
        return f"column {column} is full; playable columns: {legal_columns(self._state.board)}"

    def _observe(
        self,
        message: str,
        reward: float = 0.0,
        done: bool = False,
        last: int | None = None,
        opponent_column: int | None = None,
        meta: dict | None = None,
    ) -> Connect4Observation:
        s = self._state
        return Connect4Observation(
            board=[row[:] for row in s.board],
            legal_actions=[] if done else legal_columns(s.board),
            current_player=s.next_player,
            opponent=self._opponent,
            last_column=last,
            opponent_column=opponent_column,
            winner=s.winner,
            message=message,
            reward=reward,
            done=done,
            metadata=meta or {},
        )

    def _last_cell(self) -> tuple[int, int] | None:
        s = self._state
        if not s.moves:
            return None
        column = s.moves[-1]
        row = next(r for r in range(ROWS) if s.board[r][column] != 0)
        return row, column

    def _cell(self, row: int, col: int, in_line: bool, last: bool, playable: bool) -> Cell:
        value = self._state.board[row][col]
        background = "#15803d" if in_line else "#3b82f6" if last else "#1d4ed8"
        action = {"column": col} if playable else None
        if value == 0:
            label = f"drop a disc in column {col + 1}" if playable else None
            return Cell("●", color="#eff6ff", background=background, label=label, action=action)
        label = _NAMES[value].lower() + (" (last move)" if last else "")
        return Cell("●", color=_COLOURS[value], background=background, label=label, action=action)

    def _caption(self) -> str:
        s = self._state
        if s.winner == 0:
            return "Draw."
        if s.winner is not None:
            return f"{_NAMES[s.winner]} wins."
        who = "you" if s.next_player == 1 and self._opponent != "human" else "player"
        return f"{_NAMES[s.next_player]} ({who}) to move · opponent: {self._opponent}"
