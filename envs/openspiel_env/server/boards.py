"""OpenSpiel's common games drawn as boards and cards instead of the game's ASCII.

``board_of(game_name, state, player, caption, legal)`` gives a
:class:`~openenv.core.views.Board` for tic-tac-toe, connect four, breakthrough (squares and
pieces; a click on a square plays the move of ``legal``, the moves the visitor may play now,
that it names) and Kuhn and Leduc poker (the player's card and the board card), or ``None``
for the other games, which keep their text.
"""

from __future__ import annotations

from typing import Any

from openenv.core.views import Board, Cell

GRID = {  # game -> {character: (glyph, colour, what it is)}
    "tic_tac_toe": {"x": ("✕", "#1d4ed8", "X"), "o": ("◯", "#dc2626", "O")},
    "connect_four": {"x": ("●", "#dc2626", "first player"), "o": ("●", "#eab308", "second player")},
    "breakthrough": {"b": ("♟", "#111827", "black"), "w": ("♙", "#111827", "white")},
}
LIGHT, DARK = "#f0d9b5", "#b58863"
SUITS = "♠♥"  # Leduc's two suits; Kuhn has one


def board_of(game: str, state: Any, player: int, caption: str, legal: set[int]) -> Board | None:
    """The board of ``state`` seen by ``player`` (a seat), or None when the game has none."""
    if game in GRID:
        return _grid(game, state, legal, caption)
    if game in ("kuhn_poker", "leduc_poker"):
        return _cards(game, state, player, caption)
    return None


def _grid(game: str, state: Any, legal: set[int], caption: str) -> Board:
    lines = [line for line in str(state).splitlines() if line.strip()]
    if game == "breakthrough":  # rank digits before each row, the files' line last
        lines = [line[1:] for line in lines[:-1]]
    pieces = GRID[game]
    rows = []
    for r, line in enumerate(lines):
        row = []
        for c, ch in enumerate(line):
            glyph, colour, name = pieces.get(ch, ("", None, ""))
            background = (LIGHT if (r + c) % 2 == 0 else DARK) if game == "breakthrough" else None
            action = _cell_action(game, r, c, len(line), legal)
            label = name or (f"play here ({r + 1}, {c + 1})" if action else None)
            row.append(Cell(glyph, color=colour, background=background, label=label, action=action))
        rows.append(row)
    legend = {glyph: name for glyph, _, name in pieces.values()}
    return Board(rows, legend=legend, caption=caption)


def _cell_action(game: str, row: int, col: int, width: int, legal: set[int]) -> dict | None:
    """The move a click on a square plays: tic-tac-toe's square, connect four's column."""
    if game == "tic_tac_toe":
        action = row * width + col
    elif game == "connect_four":
        action = col
    else:
        return None
    return {"action_id": action} if action in legal else None


def _cards(game: str, state: Any, player: int, caption: str) -> Board:
    """Your card, the board card (Leduc, once dealt) and the betting so far."""
    names = "JQK" if game == "kuhn_poker" else "JJQQKK"
    text = state.information_state_string(player) if not state.is_chance_node() else ""
    mine = _card(state, player, names, game)
    cells = [Cell(mine or "?", color="#111827", background="#ffffff", label="your card")]
    public = _public_card(text, names, game)
    if public:
        cells.append(Cell(public, color="#111827", background="#fef3c7", label="board card"))
    return Board([cells], legend={"?": "not dealt yet"}, caption=f"{caption}\n{text}".strip())


def _card(state: Any, player: int, names: str, game: str) -> str | None:
    history = state.history()
    if len(history) <= player:
        return None
    return _card_name(history[player], names, game)


def _card_name(index: int, names: str, game: str) -> str:
    if game == "kuhn_poker":
        return names[index] + SUITS[0]
    return names[index] + SUITS[index % 2]


def _public_card(text: str, names: str, game: str) -> str | None:
    """Leduc's information string names the public card as ``[Public: n]``."""
    marker = "[Public: "
    if game != "leduc_poker" or marker not in text:
        return None
    value = text.split(marker, 1)[1].split("]", 1)[0].strip()
    return _card_name(int(value), names, game) if value.isdigit() else None
