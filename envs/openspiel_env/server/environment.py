"""Any OpenSpiel game by name, the agent against a built-in opponent or a second person.

One step is one agent action; chance events and the opponents' turns are played inside the same
step (the observation names the opponent's last action). Reward: the sum of the game's rewards
for the agent over the step (for win/loss games, +1/-1 at the end). With
``opponent_policy="human"`` no one plays automatically: each step moves the player to move, and
the reward is that player's. Illegal actions follow :mod:`openenv.core.rules`. Simultaneous-move
games are played turn by turn (``pyspiel.convert_to_turn_based``).
"""

from __future__ import annotations

import random
import uuid
from typing import Annotated, Any, Literal, get_args

import pyspiel
from pydantic import Field

from openenv.core import ActionChoice, Board, Environment, InvalidAction, Text
from openenv.core.rules import (
    ILLEGAL_MOVE_PENALTY,
    IllegalMovePolicy,
    check_policy,
    illegal_move,
)
from openspiel_env.models import OpenSpielAction, OpenSpielObservation, OpenSpielState
from openspiel_env.server.boards import board_of

OpponentPolicy = Literal["random", "first", "last", "human"]
POLICIES: tuple[str, ...] = get_args(OpponentPolicy)
EXAMPLES = "tic_tac_toe, connect_four, kuhn_poker, breakthrough"
# Games the playground offers in the game_name drop-down (any registered name works too).
FEATURED_GAMES = (
    "tic_tac_toe", "connect_four", "breakthrough", "hex", "othello", "checkers", "chess", "go",
    "backgammon", "dots_and_boxes", "clobber", "nine_mens_morris", "amazons", "mancala", "oware",
    "pig", "kuhn_poker", "leduc_poker", "liars_dice", "blackjack", "phantom_ttt", "goofspiel",
)  # fmt: skip
GameName = Annotated[
    str,
    Field(
        description="An OpenSpiel game's short name",
        examples=[g for g in FEATURED_GAMES if g in pyspiel.registered_names()],
    ),
]
# The playground's "you play" names, player 0's then player 1's, as the boards draw them
# (boards.py); another game of two players is "first player" and "second player".
SIDES = {
    "tic_tac_toe": ("X", "O"),
    "connect_four": ("Red", "Yellow"),
    "breakthrough": ("Black", "White"),
}
MAX_KEYED_ACTIONS = 9  # games with at most 9 distinct actions get keys 1..9
RECENT_MOVES = 6
TEXT_WIDTH = 40


# What a visitor may ask of a game's parameters: a board of 32 x 32, a few players, short text.
MAX_PARAMS = 12
MAX_PARAM_NUMBER = 32
MAX_PARAM_TEXT = 64


def check_params(params: dict[str, Any]) -> None:
    """Refuse game parameters that would make a game huge (a board of 10,000 x 10,000 takes
    gigabytes and blocks the server for seconds): numbers up to 32, text up to 64 characters."""
    if len(params) > MAX_PARAMS:
        raise InvalidAction(f"game_params takes at most {MAX_PARAMS} parameters")
    for key, value in params.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and not -MAX_PARAM_NUMBER <= value <= MAX_PARAM_NUMBER:
            raise InvalidAction(
                f"game_params {key}={value!r} is out of range: numbers from "
                f"-{MAX_PARAM_NUMBER} to {MAX_PARAM_NUMBER}"
            )
        if isinstance(value, str) and len(value) > MAX_PARAM_TEXT:
            raise InvalidAction(f"game_params {key} is longer than {MAX_PARAM_TEXT} characters")
        if not isinstance(value, int | float | str):
            raise InvalidAction(f"game_params {key} must be a number, a string or true/false")


def load_game(name: str, params: dict[str, Any]) -> pyspiel.Game:
    """Load a game by its short name; simultaneous games are made turn-based."""
    if name not in pyspiel.registered_names():
        raise InvalidAction(f"unknown OpenSpiel game {name!r}; try one of {EXAMPLES}")
    check_params(params)
    try:
        game = pyspiel.load_game(name, params)
    except pyspiel.SpielError as exc:
        reason = str(exc).splitlines()[0]
        raise InvalidAction(f"cannot load {name} with {params}: {reason}") from exc
    dynamics = game.get_type().dynamics
    if dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        return pyspiel.convert_to_turn_based(game)
    if dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise InvalidAction(f"{name} is a {dynamics.name.lower()} game; pick a sequential one")
    return game


def pick_action(policy: str, legal: list[int], rng: random.Random) -> int:
    """The built-in opponent's choice among ``legal`` (sorted action ids)."""
    if policy == "first":
        return legal[0]
    if policy == "last":
        return legal[-1]
    return rng.choice(legal)


def sample_chance(outcomes: list[tuple[int, float]], rng: random.Random) -> int:
    actions, weights = zip(*outcomes, strict=True)
    return rng.choices(actions, weights=weights)[0]


def _join_lines(items: list[str], width: int) -> list[str]:
    """Join items with spaces into lines of at most ``width`` characters, never splitting one."""
    lines = [items[0]]
    for item in items[1:]:
        if len(lines[-1]) + 1 + len(item) > width:
            lines.append("  " + item)
        else:
            lines[-1] += " " + item
    return lines


class OpenSpielEnvironment(Environment[OpenSpielAction, OpenSpielObservation, OpenSpielState]):
    how_to_play = (
        "Tic-tac-toe against a built-in opponent by default: click a cell (or a button) "
        "to play your mark; pick another game in Reset options."
    )
    render_fps = 2  # frames per second of its autoplay and videos
    sides = SIDES["tic_tac_toe"]  # the default game's; sides_for names each game's

    @classmethod
    def sides_for(cls, options: dict[str, Any]) -> tuple[str, str] | None:
        """The sides of the game the reset options pick (``None``: not a game of two)."""
        name = options.get("game_name") or "tic_tac_toe"
        if name in SIDES and not options.get("game_params"):
            return SIDES[name]
        game = load_game(str(name), dict(options.get("game_params") or {}))
        if game.num_players() != 2:
            return None
        return SIDES.get(str(name), ("first player", "second player"))

    def __init__(self) -> None:
        self._game = pyspiel.load_game("tic_tac_toe")
        self._spiel = self._game.new_initial_state()
        self._state = OpenSpielState()
        self._policy = check_policy("refuse")
        self._returns: list[float] = []
        self._moves: list[str] = []  # "P0 Bet" for every player action (chance events hidden)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        game_name: GameName = "tic_tac_toe",
        game_params: dict[str, Any] | None = None,
        agent_player: int = 0,
        opponent_policy: OpponentPolicy = "random",
        illegal_move: IllegalMovePolicy = "refuse",
    ) -> OpenSpielObservation:
        if opponent_policy not in POLICIES:
            raise InvalidAction(
                f"opponent_policy must be one of {', '.join(POLICIES)}; got {opponent_policy!r}"
            )
        game = load_game(game_name, dict(game_params or {}))
        if not 0 <= agent_player < game.num_players():
            raise InvalidAction(f"agent_player must be 0..{game.num_players() - 1} for {game_name}")
        self._policy = check_policy(illegal_move)
        self._game, self._spiel = game, game.new_initial_state()
        self._returns = [0.0] * game.num_players()
        self._moves = []
        self._state = OpenSpielState(
            episode_id=episode_id or str(uuid.uuid4()),
            game_name=game_name,
            agent_player=agent_player,
            opponent_policy=opponent_policy,
            game_params=dict(game_params or {}),
            num_players=game.num_players(),
        )
        opponent = self._play_others()
        return self._observe(f"New game of {game_name}.", opponent=opponent)

    def step(self, action: OpenSpielAction) -> OpenSpielObservation:
        spiel = self._spiel
        mover = spiel.current_player()
        if action.action_id not in spiel.legal_actions():
            reason = f"action {action.action_id} is not legal now; legal: {spiel.legal_actions()}"
            meta = illegal_move(self._policy, reason)  # raises under the default "refuse"
            self._state.step_count += 1
            return self._observe(reason, reward=ILLEGAL_MOVE_PENALTY, done=True, meta=meta)
        name = spiel.action_to_string(mover, action.action_id)
        before = list(self._returns)
        self._apply(action.action_id)
        self._state.step_count += 1
        opponent = self._play_others()
        viewer = self._state.agent_player if self._auto_opponent else mover
        reward = self._returns[viewer] - before[viewer]
        message = f"Player {mover} played {name}."
        if opponent:
            message += f" Opponent played {opponent[1]}."
        if self._spiel.is_terminal():
            message += f" Game over; returns {self._returns}."
        done = self._spiel.is_terminal()
        return self._observe(message, reward=reward, done=done, opponent=opponent)

    @property
    def state(self) -> OpenSpielState:
        return self._state

    def render(self) -> Board | Text:
        s = self._state
        if s.agent_player is not None:
            legal = {c.action["action_id"] for c in self.legal_actions()}
            board = board_of(s.game_name, self._spiel, s.agent_player, self._status_line(), legal)
            if board is not None:
                return board
        return Text(self._view_text())

    def _status_line(self) -> str:
        spiel, s = self._spiel, self._state
        if spiel.is_terminal():
            return f"Game over. Returns: {self._returns}"
        if spiel.current_player() == s.agent_player or not self._auto_opponent:
            return f"Player {spiel.current_player()}: your move."
        return f"Player {spiel.current_player()} to move (you are player {s.agent_player})."

    def legal_actions(self) -> list[ActionChoice]:
        spiel = self._spiel
        if self.episode_over or spiel.is_terminal():
            return []
        player = spiel.current_player()
        keyed = self._game.num_distinct_actions() <= MAX_KEYED_ACTIONS
        return [
            ActionChoice(
                spiel.action_to_string(player, a),
                {"action_id": a},
                key=str(a + 1) if keyed else None,
                description=f"action {a}",
            )
            for a in spiel.legal_actions()
        ]

    # -- playing --------------------------------------------------------------------------

    @property
    def _auto_opponent(self) -> bool:
        return self._state.opponent_policy != "human"

    def _apply(self, action: int) -> None:
        player = self._spiel.current_player()
        if player >= 0:
            self._moves.append(f"P{player} {self._spiel.action_to_string(player, action)}")
        self._spiel.apply_action(action)
        self._state.history.append(action)
        for player, reward in enumerate(self._spiel.rewards()):
            self._returns[player] += reward

    def _play_others(self) -> tuple[int, str] | None:
        """Play chance events and built-in opponents until the agent's turn or the end.

        Returns the last opponent action (id, name), if any.
        """
        last = None
        spiel = self._spiel
        while not spiel.is_terminal():
            player = spiel.current_player()
            if spiel.is_chance_node():
                self._apply(sample_chance(spiel.chance_outcomes(), self.rng))
            elif self._auto_opponent and player != self._state.agent_player:
                choice = pick_action(self._state.opponent_policy, spiel.legal_actions(), self.rng)
                last = (choice, spiel.action_to_string(player, choice))
                self._apply(choice)
            else:
                break
        return last

    # -- views ----------------------------------------------------------------------------

    def _viewer(self) -> int:
        spiel = self._spiel
        if self._auto_opponent or spiel.is_terminal():
            return self._state.agent_player
        return spiel.current_player()

    @property
    def _perfect_information(self) -> bool:
        information = self._game.get_type().information
        return information == pyspiel.GameType.Information.PERFECT_INFORMATION

    def _game_text(self) -> str:
        spiel, kind = self._spiel, self._game.get_type()
        if spiel.is_terminal() or self._perfect_information:
            return str(spiel)
        if kind.provides_information_state_string:
            return spiel.information_state_string(self._viewer())
        if kind.provides_observation_string:
            return spiel.observation_string(self._viewer())
        return ""

    def _info_state(self) -> list[float]:
        spiel, kind = self._spiel, self._game.get_type()
        if kind.provides_information_state_tensor:
            return [float(v) for v in spiel.information_state_tensor(self._viewer())]
        if kind.provides_observation_tensor:
            return [float(v) for v in spiel.observation_tensor(self._viewer())]
        return []

    def _view_text(self) -> str:
        """The game's own view, then who plays and the last moves, in short lines."""
        spiel, s = self._spiel, self._state
        rival = "a second player" if not self._auto_opponent else f"{s.opponent_policy} opponent"
        view = self._game_text().rstrip()
        if not (spiel.is_terminal() or self._perfect_information):
            view = f"Your view: {view}"
        lines = [view, "", f"{s.game_name} vs {rival}"]
        if spiel.is_terminal():
            lines.append(f"Game over. Returns: {self._returns}")
        else:
            lines.append(f"You: player {s.agent_player}. To move: player {spiel.current_player()}")
        if self._moves:
            lines += _join_lines(["Last moves:", *self._moves[-RECENT_MOVES:]], TEXT_WIDTH)
        return "\n".join(lines)

    def _phase(self) -> str:
        if self._spiel.is_terminal():
            return "terminal"
        return "playing" if self._state.step_count else "initial"

    def _observe(
        self,
        message: str,
        *,
        reward: float = 0.0,
        done: bool = False,
        opponent: tuple[int, str] | None = None,
        meta: dict | None = None,
    ) -> OpenSpielObservation:
        spiel = self._spiel
        playing = not (done or spiel.is_terminal())
        legal = spiel.legal_actions() if playing else []
        player = spiel.current_player()
        return OpenSpielObservation(
            info_state=self._info_state(),
            legal_actions=legal,
            legal_action_names=[spiel.action_to_string(player, a) for a in legal],
            game_phase=self._phase(),
            current_player_id=player,
            opponent_last_action=opponent[0] if opponent else None,
            opponent_last_action_name=opponent[1] if opponent else None,
            game_name=self._state.game_name,
            observation_string=self._game_text(),
            returns=list(self._returns),
            message=message,
            reward=reward,
            done=done,
            metadata=meta or {},
        )
