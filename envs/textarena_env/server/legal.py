"""One button per move for the games whose moves are few (the playground's action buttons)."""

from __future__ import annotations

from typing import Any

from openenv.core import ActionChoice
from textarena_env.server.opponents import connect4_free, tictactoe_free

ARROWS = {"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight"}
WORDS = {
    "Blackjack-v0": ("hit", "stand"),
    "Secretary-v0": ("accept", "continue"),
    "ThreeCardMonte-v0": ("0", "1", "2"),
}
DIRECTIONAL = ("2048-v0", "FifteenPuzzle-v0", "FrozenLake-v0", "Sokoban-v0")


def _choice(label: str, message: str, key: str | None = None) -> ActionChoice:
    return ActionChoice(label=label, action={"message": message}, key=key)


def legal_actions(env_id: str, game: Any) -> list[ActionChoice]:
    """The moves of ``game`` now, or [] for games whose moves are not a short list."""
    gs = game.state.game_state
    if env_id == "TicTacToe-v0":
        return [_choice(f"Cell {n}", f"[{n}]", str(n)) for n in tictactoe_free(gs["board"])]
    if env_id == "ConnectFour-v0":
        return [_choice(f"Column {c}", f"[col {c}]", str(c)) for c in connect4_free(gs["board"])]
    if env_id.startswith("TowerOfHanoi"):
        return [_choice(f"{a} → {b}", f"[{a} {b}]") for a, b in _hanoi_moves(gs["towers"])]
    if env_id in DIRECTIONAL:
        return [_choice(word.title(), f"[{word}]", key) for word, key in ARROWS.items()]
    if env_id == "Bandit-v0":
        return [_choice(b.title(), f"[{b}]") for b in game.buttons]
    return [_choice(w.title(), f"[{w}]") for w in WORDS.get(env_id, ())]


def _hanoi_moves(towers: dict[str, list[int]]) -> list[tuple[str, str]]:
    return [
        (a, b)
        for a in "ABC"
        for b in "ABC"
        if a != b and towers[a] and (not towers[b] or towers[b][-1] > towers[a][-1])
    ]
