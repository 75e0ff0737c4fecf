"""Chess with full rules (python-chess) against an opponent chosen at reset.

One step is one agent move followed, inside the same step, by the opponent's reply (the
observation names it in ``opponent_move``). Rewards come from a rubric (``rubrics.py``): +1 win,
-1 loss, 0 draw, given on the last step; every other step gives 0. When the episode ends,
``metadata`` carries ``discounted_rewards`` (one per agent move, r_t = gamma^(T-1-t) * R_final)
and ``gamma``.
Illegal moves follow :mod:`openenv.core.rules`. A game can also end at reset (a ``fen`` that
is already over, or an opponent's opening move that ends it): the reset observation then has
``done=True``, ``result`` and ``metadata["termination"]``, and reward 0 (the agent never moved).
See the package README for every option.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

import chess
import chess.svg
from pydantic import Field

from chess_env.models import ChessAction, ChessObservation, ChessState
from chess_env.server.engine import evaluate
from chess_env.server.opponents import OPPONENTS, Opponent, Picker, engine_name, picker
from chess_env.server.rubrics import DiscountedRewards, GameResult, chess_rubric
from openenv.core import ActionChoice, Environment, InvalidAction, Svg
from openenv.core.rules import IllegalMovePolicy, check_policy, illegal_move

COLORS = {"white": chess.WHITE, "black": chess.BLACK}
MAX_DEPTH = 4
MAX_MOVES = 100_000  # half-moves a visitor may ask a game to last before it is drawn
BOARD_PIXELS = 420


def _color_name(color: chess.Color) -> str:
    return "white" if color == chess.WHITE else "black"


def _check_options(opponent: str, color: str | None) -> None:
    if opponent not in OPPONENTS:
        raise InvalidAction(f"opponent must be one of {', '.join(OPPONENTS)}; got {opponent!r}")
    if color is not None and color not in COLORS:
        raise InvalidAction(f"agent_color must be white, black or null; got {color!r}")


def _start_board(fen: str | None) -> chess.Board:
    try:
        board = chess.Board(fen) if fen else chess.Board()
    except ValueError as exc:
        raise InvalidAction(f"fen is not a valid FEN string: {exc}") from exc
    if not board.is_valid():
        raise InvalidAction(f"fen describes an impossible position: {board.status()!r}")
    return board


class ChessEnvironment(Environment[ChessAction, ChessObservation, ChessState]):
    how_to_play = (
        "You play the side at the bottom: click one of your pieces, then one of the "
        "highlighted squares. The engine answers in the same step."
    )
    render_fps = 1  # frames per second of its autoplay and videos
    sides = ("White", "Black")  # the playground's "you play": the side to move first, the other

    @classmethod
    def sides_for(cls, options: dict[str, Any]) -> tuple[str, str]:
        """The sides in the order they move from the reset options' position (``fen``)."""
        fen = options.get("fen")
        fields = fen.split() if isinstance(fen, str) else []
        return ("Black", "White") if len(fields) > 1 and fields[1] == "b" else cls.sides

    def __init__(self) -> None:
        self._board = chess.Board()
        self._state = ChessState()
        self._pick: Picker | None = None
        self._agent: chess.Color | None = chess.WHITE  # None in self-play
        self._orientation: chess.Color = chess.WHITE
        self._start_ply = 0
        self._max_moves = 500
        self._policy = check_policy("refuse")
        self._result = GameResult(gamma=0.99)
        self.rubric = chess_rubric(self._result)
        self.transform = DiscountedRewards(self._result)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        opponent: Opponent | None = "moonfish",
        opponent_depth: Annotated[int, Field(ge=1, le=MAX_DEPTH)] = 2,
        agent_color: Literal["white", "black"] | None = None,
        max_moves: Annotated[int, Field(ge=1, le=MAX_MOVES)] = 500,
        gamma: Annotated[float, Field(gt=0.0, le=1.0)] = 0.99,
        fen: str | None = None,
        illegal_move: IllegalMovePolicy = "refuse",
    ) -> ChessObservation:
        opponent = opponent or "self"
        _check_options(opponent, agent_color)
        self._policy = check_policy(illegal_move)
        self._board = _start_board(fen)
        color = COLORS[agent_color or self.rng.choice(sorted(COLORS))]
        self._pick = picker(opponent, opponent_depth)
        self._agent = None if self._pick is None else color
        self._orientation = color
        self._start_ply = self._board.ply()
        self._max_moves, self._result.gamma = max_moves, gamma
        self._state = ChessState(
            episode_id=episode_id or str(uuid.uuid4()),
            fen=self._board.fen(),
            current_player=_color_name(self._board.turn),
            agent_color=self._agent_label(),
            opponent=opponent,
            opponent_engine=engine_name(opponent),
            opponent_depth=opponent_depth,
        )
        over = self._over()
        reply = None
        if over is None and self._agent not in (None, self._board.turn):
            reply = self._opponent_turn()
            over = self._over()
        message = f"New game: you play {self._agent_label()} against {self._state.opponent_engine}."
        if self._agent is None:
            message = "New game in self-play: you move both sides."
        if reply:
            message += f" Opponent opened with {reply[1]}."
        if over:  # a finished position in ``fen``, or an opening move that ends the game
            no_moves = {"discounted_rewards": [], "gamma": gamma}
            return self._finish(*over, reply=reply, extra=no_moves, prefix=message + " ")
        return self._observe(message, reply=reply)

    def step(self, action: ChessAction) -> ChessObservation:
        move = self._parse(action.move)
        if isinstance(move, str):
            meta = illegal_move(self._policy, move)  # raises under the default "refuse"
            self._state.step_count += 1
            offender = self._board.turn
            result = "0-1" if offender == chess.WHITE else "1-0"
            return self._finish(result, "illegal move", extra=meta)
        san = self._board.san(move)
        self._push(move)
        self._state.step_count += 1
        over = self._over()
        reply = None if over or self._pick is None else self._opponent_turn()
        over = over or self._over()
        if over:
            return self._finish(*over, reply=reply, agent_move=move.uci())
        message = f"You played {san}." + (f" Opponent replied {reply[1]}." if reply else "")
        return self._observe(message, reply=reply, agent_move=move.uci())

    @property
    def state(self) -> ChessState:
        return self._state

    def render(self) -> Svg:
        board = self._board
        last = board.peek() if board.move_stack else None
        check = board.king(board.turn) if board.is_check() else None
        markup = chess.svg.board(
            board, orientation=self._orientation, lastmove=last, check=check, size=BOARD_PIXELS
        )
        return Svg(str(markup))

    def legal_actions(self) -> list[ActionChoice]:
        if self.episode_over:
            return []
        board = self._board
        choices = [
            ActionChoice(
                board.san(m),
                {"move": m.uci()},
                description=m.uci(),
                path=(chess.square_name(m.from_square), chess.square_name(m.to_square)),
            )
            for m in board.legal_moves
        ]
        return sorted(choices, key=lambda c: c.label)

    # -- moves ----------------------------------------------------------------------------

    def _parse(self, text: str) -> chess.Move | str:
        """The legal move ``text`` names, or the reason it is not one."""
        board = self._board
        try:
            move = chess.Move.from_uci(text.strip())
        except ValueError:
            try:
                return board.parse_san(text.strip())
            except ValueError:
                return f"{text!r} is not a legal move in UCI (e2e4) or SAN (e4) notation here"
        if move not in board.legal_moves:
            promoted = chess.Move(move.from_square, move.to_square, promotion=chess.QUEEN)
            if move.promotion is None and promoted in board.legal_moves:
                return f"{text} needs a promotion piece: {promoted.uci()} (q, r, b or n)"
            return f"{text} is not legal here; legal moves: {', '.join(self._legal_uci()[:12])}…"
        return move

    def _push(self, move: chess.Move) -> None:
        self._board.push(move)
        self._state.move_history.append(move.uci())
        self._state.fen = self._board.fen()
        self._state.current_player = _color_name(self._board.turn)

    def _opponent_turn(self) -> tuple[str, str]:
        assert self._pick is not None
        move = self._pick(self._board, self.rng)
        san = self._board.san(move)
        self._push(move)
        return move.uci(), san

    def _over(self) -> tuple[str, str] | None:
        """(result, reason) once the game has ended."""
        board = self._board
        outcome = board.outcome()
        if outcome is not None:
            return outcome.result(), outcome.termination.name.lower().replace("_", " ")
        if board.is_fifty_moves():
            return "1/2-1/2", "fifty-move rule"
        if board.is_repetition(3):
            return "1/2-1/2", "threefold repetition"
        if board.ply() - self._start_ply >= self._max_moves:
            return "1/2-1/2", f"move limit of {self._max_moves} half-moves"
        return None

    def _legal_uci(self) -> list[str]:
        return sorted(m.uci() for m in self._board.legal_moves)

    # -- rewards and observations ---------------------------------------------------------

    def _finish(
        self,
        result: str,
        reason: str,
        *,
        reply: tuple[str, str] | None = None,
        agent_move: str | None = None,
        extra: dict | None = None,
        prefix: str = "",
    ) -> ChessObservation:
        """The last observation, with the result the rubric scores (``extra``: a forfeit)."""
        self._state.result = result
        return self._observe(
            f"{prefix}Game over: {result} ({reason}).",
            reply=reply,
            agent_move=agent_move,
            done=True,
            result=result,
            extra={**(extra or {}), "termination": reason},
        )

    def _agent_label(self) -> str:
        return "both" if self._agent is None else _color_name(self._agent)

    def _observe(
        self,
        message: str,
        *,
        reply: tuple[str, str] | None = None,
        agent_move: str | None = None,
        done: bool = False,
        result: str | None = None,
        extra: dict | None = None,
    ) -> ChessObservation:
        board = self._board
        score = evaluate(board)
        meta = {
            "evaluation": score,
            "fullmove_number": board.fullmove_number,
            "halfmove_clock": board.halfmove_clock,
            **(extra or {}),
        }
        return ChessObservation(
            fen=board.fen(),
            legal_moves=[] if done else self._legal_uci(),
            is_check=board.is_check(),
            result=result,
            evaluation=score,
            turn=_color_name(board.turn),
            agent_color=self._agent_label(),
            agent_move=agent_move,
            opponent_move=reply[0] if reply else None,
            opponent_move_san=reply[1] if reply else None,
            message=message,
            reward=0.0,  # on steps the base class puts the rubric's score here
            done=done,
            metadata=meta,
        )
