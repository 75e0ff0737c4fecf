"""Boards of the games that have one, drawn from TextArena's game state.

Squares the game takes as coordinates are clickable: a click steps the move the game expects
(``[3 4]`` on Minesweeper, ``[4]`` on Tic-Tac-Toe, ``[col 3]`` on Connect Four, ``[E]`` on
Hangman's alphabet). Games without a drawing here are shown as text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openenv.core import Board, Cell

GREEN, YELLOW, GREY, LIGHT, INK, WHITE = (
    "#6aaa64",
    "#c9b458",
    "#787c7e",
    "#d3d6da",
    "#1e293b",
    "#fff",
)
BLUE, RED, GOLD, PAPER = "#2563eb", "#ef4444", "#facc15", "#f8fafc"
BLANK = Cell("", background="transparent")
FEEDBACK = {"G": GREEN, "Y": YELLOW, "X": GREY}
MINE_INK = {1: "#2563eb", 2: "#16a34a", 3: "#dc2626", 4: "#7c3aed", 5: "#b45309"}
DISK_COLOURS = ("#ef4444", "#f97316", "#facc15", "#22c55e", "#3b82f6", "#8b5cf6", "#ec4899")


def _move(text: str) -> dict[str, str]:
    return {"message": text}


def wordle(game: Any) -> Board:
    gs = game.state.game_state
    rows = [
        [
            Cell(ch.upper(), color=WHITE, background=FEEDBACK.get(mark, GREY), label=mark)
            for ch, mark in zip(word, feedback, strict=False)
        ]
        for word, feedback in gs["guess_history"]
    ]
    empty = [Cell("", background=WHITE, label="empty") for _ in range(gs["word_length"])]
    rows += [list(empty) for _ in range(gs["num_guesses"] - len(rows))]
    legend = {"green": "right place", "yellow": "elsewhere in the word", "grey": "not in it"}
    return Board(rows, legend=legend)


def hangman(game: Any) -> Board:
    gs = game.state.game_state
    word = [
        Cell(ch if ch != "_" else "", background=WHITE, label="letter")
        for ch in gs["current_board"]
    ]
    guessed, target = gs["guessed_letters"], set(gs["target_letters"])
    keys = [_letter(ch, guessed, target) for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    width = max(len(word), 9)
    rows = [_pad(word, width), _pad([], width)]
    rows += [_pad(keys[i : i + width], width) for i in range(0, 26, width)]
    return Board(
        rows, legend={"green": "in the word", "grey": "not in it", "click": "guess a letter"}
    )


def _letter(ch: str, guessed: set[str], target: set[str]) -> Cell:
    if ch in guessed:
        return Cell(ch, color=WHITE, background=GREEN if ch in target else GREY, label="guessed")
    return Cell(ch, color=INK, background=LIGHT, label=f"guess {ch}", action=_move(f"[{ch}]"))


def _pad(cells: list[Cell], width: int) -> list[Cell]:
    left = (width - len(cells)) // 2
    return [BLANK] * left + cells + [BLANK] * (width - len(cells) - left)


def sudoku(game: Any) -> Board:
    board, given = game.state.game_state["board"], game.game_board
    rows = []
    for r in range(9):
        row = []
        for c in range(9):
            shade = PAPER if (r // 3 + c // 3) % 2 == 0 else "#e2e8f0"
            value = board[r][c]
            ink = INK if given[r][c] else BLUE
            label = f"row {r + 1}, column {c + 1}"
            row.append(Cell(str(value) if value else "", color=ink, background=shade, label=label))
        rows.append(row)
    caption = "Type [row column number], rows and columns 1 to 9, e.g. [1 3 5]."
    return Board(rows, legend={"black": "given", "blue": "yours"}, caption=caption)


def minesweeper(game: Any) -> Board:
    rows = []
    for r in range(game.rows):
        row = []
        for c in range(game.cols):
            if not game.revealed[r][c]:
                row.append(
                    Cell(
                        "",
                        background="#94a3b8",
                        label=f"reveal {r} {c}",
                        action=_move(f"[{r} {c}]"),
                    )
                )
            elif game.grid[r][c] == -1:
                row.append(Cell("✹", color=WHITE, background=RED, label="mine"))
            else:
                n = game.grid[r][c]
                row.append(
                    Cell(
                        str(n) if n else "",
                        color=MINE_INK.get(n, INK),
                        background=PAPER,
                        label=str(n),
                    )
                )
        rows.append(row)
    return Board(rows, legend={"grey": "hidden: click to reveal", "number": "mines around"})


def mastermind(game: Any) -> Board:
    gs = game.state.game_state
    rows = []
    for entry in gs["history"]:
        pegs = [
            Cell(str(n), color=WHITE, background=DISK_COLOURS[(n - 1) % 7]) for n in entry["guess"]
        ]
        marks = [Cell("●", color=INK, label="black peg")] * entry["black"]
        marks += [Cell("○", color=INK, label="white peg")] * entry["white"]
        rows.append([*pegs, BLANK, *marks])
    width = 2 * gs["code_length"] + 1
    rows = [row + [BLANK] * (width - len(row)) for row in rows] or [[BLANK] * width]
    caption = f"{gs['code_length']} digits from 1 to {gs['num_numbers']}; type e.g. [1 2 3 4]."
    return Board(
        rows,
        legend={"●": "right digit, right place", "○": "right digit, elsewhere"},
        caption=caption,
    )


def hanoi(game: Any) -> Board:
    towers, height = game.state.game_state["towers"], game.num_disks
    rows = []
    for level in range(height - 1, -1, -1):
        row = []
        for name in ("A", "B", "C"):
            disks = towers[name]
            if level < len(disks):
                d = disks[level]
                row.append(
                    Cell(
                        str(d), color=WHITE, background=DISK_COLOURS[(d - 1) % 7], label=f"disk {d}"
                    )
                )
            else:
                row.append(Cell("│", color=GREY, background=PAPER))
        rows.append(row)
    rows.append([Cell(name, color=WHITE, background=INK, label=f"peg {name}") for name in "ABC"])
    return Board(
        rows, legend={"number": "disk size"}, caption="Move every disk to C; type e.g. [A C]."
    )


def tictactoe(game: Any) -> Board:
    board = game.state.game_state["board"]
    rows = [[_ttt(board[r][c], r * 3 + c) for c in range(3)] for r in range(3)]
    return Board(rows, legend={"O": "you (player 0)", "X": "built-in opponent"})


def _ttt(mark: str, cell: int) -> Cell:
    if mark:
        return Cell(mark, color=BLUE if mark == "O" else RED, background=PAPER, label=mark)
    return Cell("", background=WHITE, label=f"cell {cell}", action=_move(f"[{cell}]"))


def connect4(game: Any) -> Board:
    board = game.state.game_state["board"]
    colours = {"X": RED, "O": GOLD}
    rows = [
        [
            Cell(
                "●" if v != "." else "",
                color=colours.get(v),
                background="#1d4ed8",
                label=f"column {c}",
                action=_move(f"[col {c}]") if board[0][c] == "." else None,
            )
            for c, v in enumerate(row)
        ]
        for row in board
    ]
    rows.append([Cell(str(c), color=INK, background=PAPER) for c in range(len(board[0]))])
    return Board(
        rows,
        legend={
            "red": "you (X)",
            "yellow": "built-in opponent (O)",
            "click": "drop in that column",
        },
    )


BOARDS: dict[str, Callable[[Any], Board]] = {
    "Wordle-v0": wordle,
    "Hangman-v0": hangman,
    "Sudoku-v0": sudoku,
    "Sudoku-v0-easy": sudoku,
    "Minesweeper-v0": minesweeper,
    "Minesweeper-v0-small": minesweeper,
    "Mastermind-v0": mastermind,
    "TowerOfHanoi-v0": hanoi,
    "TicTacToe-v0": tictactoe,
    "ConnectFour-v0": connect4,
}
