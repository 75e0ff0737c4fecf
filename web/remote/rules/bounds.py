"""The rules' bounds and the field names they know (see :mod:`openenv.web.remote.rules`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

MAX_SIDE = 4096
MAX_BYTES = 16 * 1024 * 1024  # decoded pixels of one frame
MIN_GRID = 32  # an unnamed grayscale grid smaller than this is a game board
MAX_IMAGE_TEXT = 4 * (MAX_BYTES // 3 + 1) + 256  # base64 of MAX_BYTES, and a data URL prefix
MAX_TEXT = 20_000
MAX_BUTTONS = 200
MAX_LABEL = 80
MAX_DEPTH = 8  # of $ref chains in a schema
MAX_PLANS = 64  # field orders remembered, one per set of observation keys
MAX_GRID = 64  # squares a side of a board read from a grid
MAX_CATEGORIES = 12
MAX_CELL_TEXT = 3
MAX_GRID_JSON = 64 * 1024  # a grid sent as a JSON string (in metadata)
MAX_RANGE = 20  # buttons for an integer field from minimum to maximum
PALETTE = (
    ("#E69F00", "orange"),
    ("#56B4E9", "sky blue"),
    ("#009E73", "green"),
    ("#F0E442", "yellow"),
    ("#0072B2", "blue"),
    ("#D55E00", "vermilion"),
    ("#CC79A7", "purple"),
    ("#000000", "black"),
    ("#999999", "grey"),
    ("#8C6D1F", "brown"),
    ("#7C3AED", "violet"),
    ("#84CC16", "lime"),
)  # Okabe–Ito first: told apart with the common colour-vision deficiencies
EMPTY = "#F8FAFC"
EDITOR_NAMES = (
    "code", "script", "source", "program", "command", "cmd", "text", "content", "message",
    "prompt", "query", "sql", "answer", "patch", "diff", "input", "body", "cell",
)  # fmt: skip

FRAME_NAMES = ("screen", "frame", "image", "pixels", "rgb", "observation")
TEXT_NAMES = (
    "prompt", "text", "message", "board", "goal", "feedback", "output", "stdout", "stderr",
    "result", "content", "question", "answer", "instructions", "observation",
)  # fmt: skip
LEGAL_NAMES = ("legal_actions", "legal_moves", "valid_actions", "available_actions")
NAMES_BY_ID = ("action_meanings", "action_names")
NAMES_IN_STEP = ("legal_action_names",)
PLUMBING = frozenset({"metadata", "reward", "done"})
SCALARS = frozenset({"integer", "number", "boolean", "null"})
ENCODINGS = ("rows", "zlib", "png", "raw")
KEYS = {
    "up": "ArrowUp", "north": "ArrowUp", "down": "ArrowDown", "south": "ArrowDown",
    "left": "ArrowLeft", "west": "ArrowLeft", "right": "ArrowRight", "east": "ArrowRight",
    "fire": " ",
}  # fmt: skip


def named(name: str, known: Sequence[str]) -> bool:
    """Whether ``name`` is one of ``known``, or ends in ``_`` and one of them."""
    lower = name.lower()
    return lower in known or lower.rsplit("_", 1)[-1] in known


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
