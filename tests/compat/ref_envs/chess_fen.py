"""Chess with the position as a FEN string and the legal moves in UCI (written against
``openenv==0.10.0``, with python-chess).

Why: the playground must draw a ``fen`` as a board and offer ``legal_moves`` as buttons.

- Action ``{"move": str}`` in UCI (``e2e4``, ``e7e8q``). The visitor plays white; black answers
  at once with the first legal move in sorted UCI order (deterministic; no randomness, ``seed``
  changes nothing). A malformed or illegal move makes ``step`` raise ``ValueError`` with the
  reason; the reference answers ``{"type": "error", "data": {"message": "e2e5 is not legal in
  this position", "code": "EXECUTION_ERROR"}}`` and the position is unchanged.
- Observation ``fen``, ``legal_moves`` (sorted UCI, white's), ``result`` (``"1-0"``,
  ``"0-1"``, ``"1/2-1/2"``, or ``None`` while the game goes on).
- Reward 0.0 per move; at the end +1.0 if white won, -1.0 if black won, 0.0 for a draw.
"""

import os
from uuid import uuid4

import chess
from pydantic import Field

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State


class MoveAction(Action):
    move: str = Field(description="A move in UCI notation, e.g. e2e4")


class BoardObservation(Observation):
    fen: str = chess.STARTING_FEN
    legal_moves: list[str] = Field(default_factory=list)
    result: str | None = None


class ChessEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self._state = State(episode_id=str(uuid4()))
        self._board = chess.Board()

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs
    ) -> BoardObservation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        self._board = chess.Board()
        return self._observe(0.0)

    def step(
        self, action: MoveAction, timeout_s: float | None = None, **kwargs
    ) -> BoardObservation:
        try:
            move = chess.Move.from_uci(action.move.strip())
        except ValueError:
            raise ValueError(f"{action.move!r} is not a UCI move such as e2e4") from None
        if move not in self._board.legal_moves:
            raise ValueError(f"{action.move} is not legal in this position")
        self._board.push(move)
        self._state.step_count += 1
        if not self._board.is_game_over():
            self._board.push(min(self._board.legal_moves, key=lambda m: m.uci()))
        reward = {"1-0": 1.0, "0-1": -1.0}.get(self._board.result(), 0.0)
        return self._observe(reward)

    def _observe(self, reward: float) -> BoardObservation:
        over = self._board.is_game_over()
        return BoardObservation(
            fen=self._board.fen(),
            legal_moves=sorted(m.uci() for m in self._board.legal_moves),
            result=self._board.result() if over else None,
            reward=reward,
            done=over,
        )

    @property
    def state(self) -> State:
        return self._state


app = create_app(
    ChessEnvironment,
    MoveAction,
    BoardObservation,
    env_name="ref_chess",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
)
