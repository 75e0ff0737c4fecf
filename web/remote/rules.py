"""How the playground draws what a remote server sends: one rule set, read from the server's
``/schema`` and from each observation (servers built with this framework send their own views
instead: :mod:`openenv.core.view_wire`).

**The view** (the first rule that applies):

1. *A frame.* An observation field that holds an image: H×W×3 or H×W nested lists of numbers
   (0–255, or floats in [0, 1]); a flat list of numbers beside a ``<name>_shape`` field
   (``screen`` + ``screen_shape``, as the reference Atari env sends); a base64 PNG or JPEG
   string (or a ``data:image/...`` URL); or our own frame encodings
   (``{"encoding": "rows" | "zlib" | "png" | "raw", "shape", "data"}``). Fields named
   ``screen``, ``frame``, ``image``, ``pixels``, ``rgb`` or ``observation`` go first. At most
   4096×4096 pixels.
2. *A chess board.* A string field holding a FEN position: drawn as a board, with whose move.
3. *Text.* ``messages`` (a list of ``{"role", "content"}``) and string fields meant to be read
   (``prompt``, ``text``, ``message``, ``board``, ``goal``, ``feedback``, ``output``,
   ``stdout``, ``result``, and any string with a line break), each under its name.

**The buttons** (the first rule that applies):

a. ``legal_actions`` (or ``legal_moves``, ``valid_actions``, ``available_actions``) lists
   integers and the action has one required integer field (``action_id``): one button per
   legal integer, labelled from ``action_meanings`` (or ``action_names``) where the
   observation names them.
b. The same lists hold strings and the action has one required string field (``move``): one
   button per string.
c. The action's only required field is an enum or a ``Literal``: one button per value
   (``up``/``down``/``left``/``right`` and compass names also get the arrow keys).

Everything else shows as the observation's fields (the stage, the State tab). A field that
breaks a rule (a wrong shape, bad base64, too large) is skipped, never an error: the rules
draw what they can.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from openenv.core.frames import decode_frame
from openenv.core.views import ActionChoice, Board, Cell, Frame, Text, View

MAX_PIXELS = 4096 * 4096
MAX_IMAGE_TEXT = 24 * 1024 * 1024  # characters of a base64 image
MAX_TEXT = 20_000
MAX_BUTTONS = 200
FRAME_NAMES = ("screen", "frame", "image", "pixels", "rgb", "observation")
TEXT_NAMES = (
    "prompt", "text", "message", "board", "goal", "feedback", "output", "stdout", "stderr",
    "result", "content", "question", "answer", "info", "status",
)  # fmt: skip
LEGAL_NAMES = ("legal_actions", "legal_moves", "valid_actions", "available_actions")
NAME_LISTS = ("action_meanings", "action_names", "legal_action_names")
NEVER_TEXT = ("metadata", "reward", "done")
KEYS = {
    "up": "ArrowUp", "north": "ArrowUp", "down": "ArrowDown", "south": "ArrowDown",
    "left": "ArrowLeft", "west": "ArrowLeft", "right": "ArrowRight", "east": "ArrowRight",
}  # fmt: skip


@dataclass(frozen=True)
class Reading:
    """What the rules made of one observation."""

    view: View | None
    legal: list[ActionChoice]
    drawn: tuple[str, ...] = ()  # the observation's fields the view and the buttons used


class Rules:
    """The rules for one remote server, prepared from its schemas (``read`` runs every step)."""

    def __init__(
        self, action_schema: dict[str, Any], observation_schema: dict[str, Any] | None = None
    ) -> None:
        defs = action_schema.get("$defs", {})
        props = {
            name: _resolve(prop, defs)
            for name, prop in (action_schema.get("properties") or {}).items()
            if name != "metadata"
        }
        required = [n for n in action_schema.get("required", []) if n in props]
        self.int_field = self.str_field = None
        self.choices: list[ActionChoice] = []
        if len(required) == 1:
            name, prop = required[0], props[required[0]]
            if prop.get("type") == "integer" and "enum" not in prop:
                self.int_field = name
            elif prop.get("type") == "string" and "enum" not in prop and "const" not in prop:
                self.str_field = name
            values = prop.get("enum", [prop["const"]] if "const" in prop else [])
            self.choices = [
                ActionChoice(str(v), {name: v}, key=KEYS.get(str(v).lower()))
                for v in values[:MAX_BUTTONS]
            ]
        order = list((observation_schema or {}).get("properties") or {})
        self.order = {name: i for i, name in enumerate(order)}

    def read(self, observation: dict[str, Any]) -> Reading:
        if not isinstance(observation, dict):
            return Reading(None, [])
        names = sorted(observation, key=lambda n: (self.order.get(n, len(self.order)), 0))
        legal, used = self._buttons(observation)
        view, drawn = _frame(observation, names)
        if view is None:
            view, drawn = _chess(observation, names)
        if view is None:
            view, drawn = _text(observation, names)
        return Reading(view, legal, tuple(drawn) + tuple(used))

    def _buttons(self, obs: dict[str, Any]) -> tuple[list[ActionChoice], list[str]]:
        listed = next((n for n in LEGAL_NAMES if isinstance(obs.get(n), list)), None)
        if listed is not None and (self.int_field or self.str_field):
            values = obs[listed]
            if len(values) > MAX_BUTTONS:
                return [], []
            if self.int_field and all(_is_int(v) for v in values):
                names_field = next((n for n in NAME_LISTS if isinstance(obs.get(n), list)), None)
                labels = obs[names_field] if names_field else []
                used = [listed] + ([names_field] if names_field else [])
                return [
                    ActionChoice(_label(v, i, labels, values), {self.int_field: v})
                    for i, v in enumerate(values)
                ], used
            if self.str_field and all(isinstance(v, str) for v in values):
                return [ActionChoice(v[:80], {self.str_field: v}) for v in values], [listed]
        return list(self.choices), []


def _label(value: int, index: int, labels: list[Any], values: list[Any]) -> str:
    """The name of legal action ``value``: by id when the names cover every id, else by place."""
    if labels and all(isinstance(v, int) and 0 <= v < len(labels) for v in values):
        return str(labels[value])
    if len(labels) == len(values):
        return str(labels[index])
    return str(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- frames ----------------------------------------------------------------------------------


def _frame(obs: dict[str, Any], names: list[str]) -> tuple[View | None, list[str]]:
    ranked = sorted(names, key=lambda n: 0 if n.lower() in FRAME_NAMES else 1)
    for name in ranked:
        value = obs[name]
        pixels: np.ndarray | None = None
        used = [name]
        try:
            if isinstance(value, list) and value:
                shape = obs.get(f"{name}_shape")
                if isinstance(shape, list) and not isinstance(value[0], list):
                    pixels = _flat(value, shape)
                    used.append(f"{name}_shape")
                elif isinstance(value[0], list):
                    pixels = _nested(value)
            elif isinstance(value, str) and len(value) > 64:
                pixels = _image(value)
            elif isinstance(value, dict) and value.get("encoding") in (
                "rows",
                "zlib",
                "png",
                "raw",
            ):
                pixels = _pixels(decode_frame(value, max_bytes=MAX_PIXELS * 3))
        except (ValueError, TypeError, OverflowError):
            pixels = None
        if pixels is not None:
            return Frame(pixels), used
    return None, []


def _flat(values: list[Any], shape: list[Any]) -> np.ndarray | None:
    if not all(_is_int(n) and n > 0 for n in shape) or len(shape) not in (2, 3):
        return None
    if math.prod(shape) != len(values) or math.prod(shape[:2]) > MAX_PIXELS:
        return None
    return _pixels(np.asarray(values).reshape(shape))


def _nested(rows: list[Any]) -> np.ndarray | None:
    height, first = len(rows), rows[0]
    width = len(first) if isinstance(first, list) else 0
    if height * width > MAX_PIXELS or width == 0:
        return None
    return _pixels(np.asarray(rows))


def _pixels(array: np.ndarray) -> np.ndarray | None:
    """``array`` as H×W×3 ``uint8``, or ``None`` when it is not an image."""
    if array.dtype.kind not in "uif" or array.ndim not in (2, 3):
        return None
    if array.ndim == 3:
        if array.shape[2] == 1:
            array = array[:, :, 0]
        elif array.shape[2] == 4:
            array = array[:, :, :3]
        elif array.shape[2] != 3:
            return None
    if min(array.shape[:2]) < 1 or math.prod(array.shape[:2]) > MAX_PIXELS:
        return None
    if array.dtype.kind == "f":
        if not np.isfinite(array).all():
            return None
        if array.size and array.min() >= 0 and array.max() <= 1:
            array = array * 255
    if array.size and (array.min() < 0 or array.max() > 255):
        return None
    pixels = array.astype(np.uint8)
    return np.repeat(pixels[:, :, None], 3, axis=2) if pixels.ndim == 2 else pixels


_DATA_URL = re.compile(r"^data:image/[a-z+.-]+;base64,", re.IGNORECASE)
_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")


def _image(text: str) -> np.ndarray | None:
    """The pixels of a base64 PNG or JPEG (or such a ``data:`` URL), else ``None``."""
    if len(text) > MAX_IMAGE_TEXT:
        return None
    body = _DATA_URL.sub("", text, count=1)
    try:
        head = base64.b64decode(body[:16], validate=True)
    except (binascii.Error, ValueError):
        return None
    if not head.startswith(_SIGNATURES):
        return None
    try:
        raw = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return None
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(raw)) as image:
            if image.width * image.height > MAX_PIXELS:
                return None
            return np.asarray(image.convert("RGB"), dtype=np.uint8)
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
        return None


# -- chess -----------------------------------------------------------------------------------

PIECES = dict(zip("KQRBNPkqrbnp", "♔♕♖♗♘♙♚♛♜♝♞♟", strict=True))
LIGHT, DARK = "#f0d9b5", "#b58863"


def _fen_rows(text: str) -> list[str] | None:
    parts = text.split()
    if len(parts) != 6 or parts[1] not in ("w", "b"):
        return None
    ranks = parts[0].split("/")
    if len(ranks) != 8:
        return None
    rows = []
    for rank in ranks:
        row = "".join(" " * int(c) if c in "12345678" else c for c in rank)
        if len(row) != 8 or any(c != " " and c not in PIECES for c in row):
            return None
        rows.append(row)
    return rows


def _chess(obs: dict[str, Any], names: list[str]) -> tuple[View | None, list[str]]:
    for name in names:
        value = obs[name]
        rows = _fen_rows(value) if isinstance(value, str) and len(value) < 100 else None
        if rows is None:
            continue
        cells = [
            [
                Cell(
                    glyph=PIECES.get(piece, ""),
                    color="#111827" if piece.isalpha() else None,
                    background=LIGHT if (r + c) % 2 == 0 else DARK,
                    label=f"{'abcdefgh'[c]}{8 - r}",
                )
                for c, piece in enumerate(row)
            ]
            for r, row in enumerate(rows)
        ]
        turn = "White to move" if value.split()[1] == "w" else "Black to move"
        return Board(cells, caption=turn), [name]
    return None, []


# -- text ------------------------------------------------------------------------------------


def _text(obs: dict[str, Any], names: list[str]) -> tuple[View | None, list[str]]:
    parts: list[tuple[str, str]] = []
    for name in names:
        value = obs[name]
        if name in NEVER_TEXT:
            continue
        if name == "messages" and isinstance(value, list):
            said = [
                f"{m.get('role', '?')}: {m.get('content', '')}"
                for m in value
                if isinstance(m, dict)
            ]
            if said:
                parts.append((name, "\n\n".join(said)))
        elif (
            isinstance(value, str)
            and value.strip()
            and (name.lower() in TEXT_NAMES or "\n" in value)
        ):
            parts.append((name, value))
    if not parts:
        return None, []
    text = parts[0][1] if len(parts) == 1 else "\n\n".join(f"[{n}]\n{t}" for n, t in parts)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + "\n… (truncated)"
    return Text(text), [n for n, _ in parts]


def _resolve(prop: Any, defs: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """``prop`` with ``$ref``, a single ``allOf`` and an ``anyOf`` with ``null`` resolved."""
    if not isinstance(prop, dict) or depth > 8:
        return {}
    if "$ref" in prop:
        return _resolve(defs.get(str(prop["$ref"]).rsplit("/", 1)[-1], {}), defs, depth + 1)
    options = prop.get("anyOf") or prop.get("oneOf")
    if options:
        real = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        return _resolve(real[0], defs, depth + 1) if len(real) == 1 else {}
    if isinstance(prop.get("allOf"), list) and len(prop["allOf"]) == 1:
        return _resolve(prop["allOf"][0], defs, depth + 1)
    return prop
