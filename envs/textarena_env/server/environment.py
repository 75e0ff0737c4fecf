"""TextArena's offline games behind the OpenEnv contract, shaped as the reference env.

Actions: ``TextArenaAction(message="[crane]")``, the move in the game's own syntax (the
game's prompt says it; brackets are added when a message has none, as TextArena does). The
observation's ``messages[0].content`` is everything the player has seen so far in TextArena's
LLM format (``[GAME] ...`` / ``[Player] ...`` lines, new text appended at the end), ``prompt``
the game's instructions, ``current_player_id`` / ``legal_players`` / ``info`` as the reference.

A move the game refuses gets the game's own invalid-move response (``You attempted an invalid
move. Reason: ...``) and the turn is replayed; the game's rules decide when repeated invalid
moves end the episode (TextArena: the second in a row). A message that is not a string, or
longer than 1000 characters, is a validation error and changes nothing.

Two-player games (Tic-Tac-Toe, Connect Four): the agent is player 0 and moves first; the
built-in opponent (reset option ``opponent``, see ``opponents.py``) replies inside the same
step. Rewards are TextArena's for player 0: given when the episode ends (1 win, -1 loss, 0
draw; single-player games give 1 for a win or their completion score), 0.0 before.

Reset options: ``env_id`` (the game), ``opponent`` (two-player games), and ``seed``: the same
seed replays the same game move for move, however many sessions run at once. Or
``task_source`` (a task file such as the shipped ``games.jsonl``, or a dataset) and
``task_index`` (its row; none: the seed picks one): a row names the game, and may fix its seed,
its secret word and the opponent (``task_rows.py``).
"""

from __future__ import annotations

import dataclasses
import uuid
from enum import Enum
from typing import Any

from openenv.core import ActionChoice, Board, Environment, InvalidAction, Text
from textarena_env.models import (
    TextArenaAction,
    TextArenaMessage,
    TextArenaObservation,
    TextArenaState,
)
from textarena_env.server.boards import BOARDS
from textarena_env.server.games import GAMES, GameId, build, unwrapped
from textarena_env.server.legal import legal_actions
from textarena_env.server.offline import SessionRandom, missing_data
from textarena_env.server.opponents import MOVERS, Opponent
from textarena_env.server.task_rows import TASK_ROWS, plant_secret, row_env_id, row_game

GAME_ID = -1
MAX_STEPS = 300  # a cap on agent steps per episode: bounds the text every observation carries
CAPTION_CHARS = 240
DEFAULT_GAME = "Wordle-v0"
TaskSource, TaskRow = TASK_ROWS.options()


class TextArenaEnvironment(Environment[TextArenaAction, TextArenaObservation, TextArenaState]):
    """One TextArena game per session."""

    how_to_play = (
        "Play the word or board game shown: click the board or type your move in the box "
        "and press Send."
    )

    # The playground's "you play" for the two-player games, player 0's then player 1's, as
    # their boards draw them (boards.py); the other games are one player's.
    SIDES = {"TicTacToe-v0": ("O", "X"), "ConnectFour-v0": ("Red (X)", "Yellow (O)")}

    @classmethod
    def sides_for(cls, options: dict[str, Any]) -> tuple[str, str] | None:
        """The sides of the game the reset options pick (``None``: a game of one player)."""
        game = row_env_id(options) or options.get("env_id") or DEFAULT_GAME
        return cls.SIDES.get(str(game))

    def __init__(self) -> None:
        self._state = TextArenaState()
        self._game: Any = None
        self._random = SessionRandom(None)
        self._opponent: Opponent = "heuristic"
        self._log: list[TextArenaMessage] = []
        self._text = ""
        self._prompt = ""

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        env_id: GameId = DEFAULT_GAME,
        opponent: Opponent = "heuristic",
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> TextArenaObservation:
        picked = TASK_ROWS.pick(
            task_source, task_index, self.rng, "game", env_id=env_id != DEFAULT_GAME
        )
        row = row_game(picked) if picked is not None else None
        if row is not None:
            env_id, opponent = row.env_id, row.opponent or opponent
        seed = row.seed if row is not None and row.seed is not None else self.seed
        spec = GAMES.get(env_id)
        if spec is None:
            raise InvalidAction(f"env_id {env_id!r} is not offered; pick one of {', '.join(GAMES)}")
        problem = missing_data(spec.data)
        if problem is not None:
            raise InvalidAction(f"{env_id} cannot start: {problem}")
        self._random = SessionRandom(seed)
        with self._random.active():
            game = build(env_id)
            if row is not None:
                plant_secret(game, row)
            game.reset(num_players=spec.players, seed=seed)
        self._game, self._opponent = game, opponent
        self._log, self._text, self._prompt = [], "", ""
        self._read()
        self._state = TextArenaState(
            episode_id=episode_id or str(uuid.uuid4()),
            env_id=env_id,
            num_players=spec.players,
            max_turns=getattr(game.state, "max_turns", None),
            task_source=picked.source if picked is not None else None,
            task_index=picked.index if picked is not None else None,
        )
        self._state.raw_state = self._snapshot()
        return self._observe({}, 0.0, False)

    def step(self, action: TextArenaAction) -> TextArenaObservation:
        s, game = self._state, self._game
        with self._random.active():
            done, info = game.step(action.message)
            self._read()
            replies = s.num_players == 2 and self._opponent != "human"
            if not done and replies and game.state.current_player_id == 1:
                done, info = self._opponent_moves()
        s.step_count += 1
        s.turn = int(getattr(game.state, "turn", s.turn))
        if not done and s.step_count >= MAX_STEPS:
            done, info = True, {**info, "truncated": f"step limit of {MAX_STEPS} reached"}
        reward = self._reward() if done else 0.0
        if done:
            self._log_outcome(info)
        s.last_reward, s.last_info = reward, _plain(info)
        s.raw_state = self._snapshot()
        return self._observe(info, reward, done)

    @property
    def state(self) -> TextArenaState:
        return self._state

    def render(self) -> Board | Text | None:
        if self._game is None:
            return None
        draw = BOARDS.get(self._state.env_id)
        if draw is None:
            return Text(self._text_view())
        board = draw(unwrapped(self._game))
        latest = self._latest(board_too=False)
        caption = _short(latest) if latest else board.caption
        return dataclasses.replace(board, caption=caption)

    def legal_actions(self) -> list[ActionChoice]:
        if self._game is None or self._game.state.done:
            return []
        return legal_actions(self._state.env_id, unwrapped(self._game))

    # -- internals ------------------------------------------------------------------------

    def _opponent_moves(self) -> tuple[bool, dict]:
        """Player 1's reply: the built-in opponent's move (a second try if the game refuses)."""
        game, mover = self._game, MOVERS[self._state.env_id]
        done, info = False, {}
        for _ in range(2):
            game.state.observations[1] = []  # the opponent reads the board, not the text
            done, info = game.step(mover(game.state.game_state["board"], self._opponent))
            if done or game.state.current_player_id == 0:
                break
        self._read()
        return done, info

    def _read(self) -> None:
        """Move the messages waiting for player 0 into the log and the running text."""
        st = self._game.state
        waiting, st.observations[0] = st.observations.get(0, []), []
        roles = getattr(st, "role_mapping", {}) or {}
        for sender, content, kind in waiting:
            sender_id = sender if isinstance(sender, int) else GAME_ID
            category = getattr(kind, "name", str(kind))
            message = TextArenaMessage(sender_id=sender_id, content=str(content), category=category)
            self._add(
                message,
                "GAME" if sender_id == GAME_ID else roles.get(sender_id, f"Player {sender_id}"),
            )
            if category == "PROMPT" and not self._prompt:
                self._prompt = message.content

    def _add(self, message: TextArenaMessage, sender_name: str) -> None:
        self._log.append(message)
        self._text += f"\n[{sender_name}] {message.content}"

    def _log_outcome(self, info: dict) -> None:
        reason = _reason(self._game.state) or info.get("truncated")
        if reason:
            self._add(TextArenaMessage(content=str(reason), category="GAME_ADMIN"), "GAME")

    def _reward(self) -> float:
        rewards = getattr(self._game.state, "rewards", None) or {}
        return float(rewards.get(0, 0.0))

    def _observe(self, info: dict, reward: float, done: bool) -> TextArenaObservation:
        st = self._game.state
        players = sorted(
            p for p in (getattr(st, "role_mapping", {}) or {}) if isinstance(p, int) and p >= 0
        )
        return TextArenaObservation(
            prompt=self._prompt,
            messages=[TextArenaMessage(sender_id=GAME_ID, content=self._text, category="MESSAGE")],
            current_player_id=0 if done else int(st.current_player_id),
            legal_players=players,
            info=_plain(info),
            reward=reward,
            done=done,
            metadata={"env_id": self._state.env_id, "turn": int(getattr(st, "turn", 0))},
        )

    def _snapshot(self) -> dict[str, Any]:
        st, hidden = self._game.state, set(GAMES[self._state.env_id].hidden)
        game_state = getattr(st, "game_state", None) or {}
        return _plain(
            {
                "turn": getattr(st, "turn", 0),
                "done": getattr(st, "done", False),
                "rewards": getattr(st, "rewards", None),
                "role_mapping": getattr(st, "role_mapping", {}),
                "game_state": {k: v for k, v in game_state.items() if k not in hidden},
            }
        )

    def _latest(self, board_too: bool) -> str:
        for message in reversed(self._log):
            if message.category in ("PROMPT", "PLAYER_ACTION"):
                continue
            if board_too or message.category != "GAME_BOARD":
                return message.content
        return ""

    def _text_view(self) -> str:
        board = next((m.content for m in reversed(self._log) if m.category == "GAME_BOARD"), "")
        latest = self._latest(board_too=False)
        hint = GAMES[self._state.env_id].example
        parts = [board.strip(), latest.strip(), f"Example move: {hint}" if hint else ""]
        return "\n\n".join(p for p in parts if p) or self._prompt


def _reason(state: Any) -> str | None:
    info = getattr(state, "game_info", {}) or {}
    return (info.get(0) or {}).get("reason")


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= CAPTION_CHARS else line[: CAPTION_CHARS - 1] + "…"


def _plain(value: Any) -> Any:
    """``value`` as JSON data: sets sorted into lists, enums by name, keys as strings."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(_plain(v) for v in value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Enum):
        return value.name
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
