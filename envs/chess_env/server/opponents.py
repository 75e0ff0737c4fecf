"""The opponents a chess episode can be played against, chosen at reset.

``moonfish`` is the engine the OpenEnv documentation describes (``pip install --no-deps
moonfish``: its wheel declares developer tools such as pyinstaller and mypy as requirements, so it
is not part of the ``chess`` extra). When it is not installed, our own alpha-beta engine plays in
its place and the episode says so in ``opponent_engine``.
"""

from __future__ import annotations

import importlib.util
import random
import threading
from collections.abc import Callable
from typing import Literal, get_args

import chess

from chess_env.server.engine import best_move

Opponent = Literal["moonfish", "alphabeta", "random", "self"]
OPPONENTS: tuple[str, ...] = get_args(Opponent)
MOONFISH_MISSING = "alphabeta (moonfish is not installed: pip install --no-deps moonfish)"

Picker = Callable[[chess.Board, random.Random], chess.Move]

# moonfish shuffles moves with the global `random` module; we swap in the episode's generator
# for the duration of a search so games stay reproducible, one search at a time.
_MOONFISH_LOCK = threading.Lock()


def moonfish_installed() -> bool:
    return importlib.util.find_spec("moonfish") is not None


def engine_name(opponent: str) -> str:
    """The engine that actually plays for the ``opponent`` reset option."""
    if opponent == "moonfish" and not moonfish_installed():
        return MOONFISH_MISSING
    return opponent


def picker(opponent: str, depth: int) -> Picker | None:
    """A function choosing the opponent's move, or ``None`` for self-play."""
    name = engine_name(opponent)
    if name == "self":
        return None
    if name == "random":
        return lambda board, rng: rng.choice(sorted(board.legal_moves, key=chess.Move.uci))
    if name == "moonfish":
        return lambda board, rng: _moonfish_move(board, depth, rng)
    return lambda board, rng: best_move(board, depth, rng)


def _moonfish_move(board: chess.Board, depth: int, rng: random.Random) -> chess.Move:
    from moonfish import lib, move_ordering
    from moonfish.engines import alpha_beta

    with _MOONFISH_LOCK:
        saved = move_ordering.random, alpha_beta.choice
        move_ordering.random, alpha_beta.choice = rng, rng.choice
        try:
            return lib.search_move(board.copy(), depth=depth)
        finally:
            move_ordering.random, alpha_beta.choice = saved
