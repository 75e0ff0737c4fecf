"""How the playground draws what a remote server sends: one rule set, read from the server's
``/schema`` and from each observation. (A server built with this framework sends its own views
instead: :mod:`openenv.core.view_wire`.)

(Over 400 lines: the rules are one documented set, and each rule's text, its bounds and its
reader belong in one place a user is pointed to.)

**The view**: the first rule that applies.

1. *A frame.* A field holding an image:

   - H×W×3 (or H×W×1, H×W×4: alpha dropped) nested lists of numbers;
   - H×W nested lists (grayscale), when the field has a frame name (below) or the grid is at
     least 32×32: a small grid under another name, such as a sudoku's digits, is a game
     board, not a picture;
   - a flat list of numbers beside a ``<name>_shape`` field of ``[H, W, 3]``, ``[H, W]`` or
     ``[H, W, 1]`` whose product is the list's length (the reference Atari env's ``screen``
     and ``screen_shape``);
   - a base64 PNG or JPEG string, or such a ``data:image/...;base64,`` URL;
   - this framework's frame encodings (``{"encoding": "rows" | "zlib" | "png" | "raw", ...}``).

   Numbers are integers 0–255, or floats all within [0, 1] (scaled by 255). At most 4096
   pixels a side and 16 MB of decoded pixels. Fields with a frame name go first: ``screen``,
   ``frame``, ``image``, ``pixels``, ``rgb``, ``observation``, or a name ending in ``_`` and
   one of these (``camera_image``); then the others.
2. *A chess board.* A string holding a FEN position (six space-separated parts, eight ranks of
   eight squares): an 8×8 board of piece glyphs, each square titled by its name (``e4``),
   captioned with whose move it is.
3. *Text.* ``messages`` (a list of ``{"role", "content"}``, drawn ``role: content``) and string
   fields meant for people: named ``prompt``, ``text``, ``message``, ``board``, ``goal``,
   ``feedback``, ``output``, ``stdout``, ``stderr``, ``result``, ``content``, ``question``,
   ``answer``, ``instructions``, ``observation`` (or ending in ``_`` and one of these), or
   holding a line break. Several are each headed ``[name]``. At most 20,000 characters.

Otherwise there is no view, and the observation's fields are shown as they are.

**The buttons**: the first rule that applies.

a. ``legal_actions`` (or ``legal_moves``, ``valid_actions``, ``available_actions``) lists
   integers, and the action has one required integer field (``action_id``; or one field, with
   a default): a button per legal integer, labelled by ``action_meanings`` or
   ``action_names`` (indexed by the integer when the names cover every one, else read in step
   with the legal list), or by ``legal_action_names`` (in step with the legal list), else by
   the integer itself.
b. The same lists hold strings and the action has one required string field (``move``): a
   button per string.
c. The action's one required field is an enum or a ``Literal``: a button per value.
   ``up``/``down``/``left``/``right`` and ``north``/``south``/``west``/``east`` get the arrow
   keys, ``fire`` the space bar.

More than 200 choices make no buttons, and none is also an answer ("nothing is legal now");
the action form works either way.

**Always.** Fields are read in the order of the server's observation schema, then the
observation's own order. ``metadata``, ``reward`` and ``done`` are never drawn, nor fields the
schema types as numbers or booleans. A field that breaks a rule (a wrong shape, bad base64, an
image too large) is skipped, never an error. The fields a view or the buttons used are not
shown again among the observation's fields.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from openenv.core.frames import decode_frame
from openenv.core.views import ActionChoice, Board, Cell, Frame, Text, View

MAX_SIDE = 4096
MAX_BYTES = 16 * 1024 * 1024  # decoded pixels of one frame
MIN_GRID = 32  # an unnamed grayscale grid smaller than this is a game board
MAX_IMAGE_TEXT = 4 * (MAX_BYTES // 3 + 1) + 256  # base64 of MAX_BYTES, and a data URL prefix
MAX_TEXT = 20_000
MAX_BUTTONS = 200
MAX_LABEL = 80
MAX_DEPTH = 8  # of $ref chains in a schema
MAX_PLANS = 64  # field orders remembered, one per set of observation keys

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

# What decoding a hostile image or frame can raise (Pillow's plugins raise all of these).
_DECODE_ERRORS = (
    OSError, ValueError, SyntaxError, EOFError, struct.error, zlib.error,
    Image.DecompressionBombError,
)  # fmt: skip


@dataclass(frozen=True)
class Reading:
    """What the rules made of one observation."""

    view: View | None  # what the stage draws
    legal: list[ActionChoice]  # a button per action the visitor can take now ([]: none known)
    drawn: tuple[str, ...] = ()  # the fields the view and the buttons used


@dataclass(frozen=True)
class _Target:
    """The action field buttons fill: its name, JSON type, and enum values if any."""

    name: str
    kind: str | None
    values: tuple[Any, ...] = ()


Plan = tuple[list[str], list[str]]  # the fields in reading order, and in frame order


class Rules:
    """The rules for one remote server, prepared from its schemas (``read`` runs every step)."""

    def __init__(
        self, action_schema: dict[str, Any], observation_schema: dict[str, Any] | None = None
    ) -> None:
        self._target = _target(action_schema)
        self._choices = _enum_buttons(self._target)
        props = _properties(observation_schema)
        self._order = {name: i for i, name in enumerate(props)}
        self._scalars = frozenset(n for n, p in props.items() if _type(p) in SCALARS)
        self._plans: dict[tuple[Any, ...], Plan] = {}

    def read(self, observation: dict[str, Any]) -> Reading:
        """The view and buttons of one observation (never raises: see the module's rules)."""
        if not isinstance(observation, dict):
            return Reading(None, [])
        names, frames = self._plan(observation)
        view, drawn = _view(observation, names, frames)
        legal, used = self._buttons(observation)
        return Reading(view, legal, tuple(dict.fromkeys(drawn + used)))

    def _plan(self, obs: dict[str, Any]) -> Plan:
        # Servers send the same keys every step: the order is worked out once per set of keys.
        key = tuple(obs)
        plan = self._plans.get(key)
        if plan is None:
            names = [n for n in key if isinstance(n, str) and n not in PLUMBING]
            names = [n for n in names if n not in self._scalars]
            names.sort(key=lambda n: self._order.get(n, len(self._order)))
            frames = sorted(names, key=lambda n: not _named(n, FRAME_NAMES))
            if len(self._plans) >= MAX_PLANS:
                self._plans.clear()
            plan = self._plans[key] = (names, frames)
        return plan

    def _buttons(self, obs: dict[str, Any]) -> tuple[list[ActionChoice], tuple[str, ...]]:
        target = self._target
        listed = next((n for n in LEGAL_NAMES if isinstance(obs.get(n), list)), None)
        if target is not None and listed is not None:
            found = _listed_buttons(target, obs, listed)
            if found is not None:
                return found
        return list(self._choices), ()


# -- the view ---------------------------------------------------------------------------------


def _view(
    obs: dict[str, Any], names: list[str], frames: list[str]
) -> tuple[View | None, tuple[str, ...]]:
    found = _frame(obs, frames)
    if found[0] is None:
        found = _chess(obs, names)
    if found[0] is None:
        found = _text(obs, names)
    return found


def _named(name: str, known: Sequence[str]) -> bool:
    """Whether ``name`` is one of ``known``, or ends in ``_`` and one of them."""
    lower = name.lower()
    return lower in known or lower.rsplit("_", 1)[-1] in known


# -- frames -----------------------------------------------------------------------------------


def _frame(obs: dict[str, Any], names: list[str]) -> tuple[View | None, tuple[str, ...]]:
    for name in names:
        pixels, used = _field_pixels(name, obs)
        if pixels is not None:
            return Frame(pixels), used
    return None, ()


def _field_pixels(name: str, obs: dict[str, Any]) -> tuple[np.ndarray | None, tuple[str, ...]]:
    value = obs[name]
    if isinstance(value, str):
        return _image(value), (name,)
    if isinstance(value, dict) and value.get("encoding") in ENCODINGS:
        return _encoded(value), (name,)
    if isinstance(value, list) and value:
        if isinstance(value[0], list):
            return _nested(value, _named(name, FRAME_NAMES)), (name,)
        shape_name = f"{name}_shape"
        return _flat(value, obs.get(shape_name)), (name, shape_name)
    return None, ()


def _fits(height: int, width: int) -> bool:
    return 0 < height <= MAX_SIDE and 0 < width <= MAX_SIDE and height * width * 3 <= MAX_BYTES


def _flat(values: list[Any], shape: Any) -> np.ndarray | None:
    """A flat list of pixel values in the layout ``shape`` gives (``[H, W, 3]``, ``[H, W]``)."""
    if not isinstance(shape, list) or len(shape) not in (2, 3):
        return None
    if not all(_is_int(n) for n in shape) or (len(shape) == 3 and shape[2] not in (1, 3, 4)):
        return None
    if not _fits(shape[0], shape[1]) or math.prod(shape) != len(values):
        return None
    array = _numbers(values)
    return None if array is None else _rgb(array.reshape(shape))


def _nested(rows: list[Any], named: bool) -> np.ndarray | None:
    """Rows of pixels: H×W×C lists, or an H×W grid when named like a frame or large enough."""
    first = rows[0]
    if not first or not _fits(len(rows), len(first)):
        return None
    grid = not isinstance(first[0], list)
    if grid and not named and min(len(rows), len(first)) < MIN_GRID:
        return None
    if not grid and len(first[0]) not in (1, 3, 4):
        return None
    array = _numbers(rows)
    if array is None or array.ndim != (2 if grid else 3):
        return None
    return _rgb(array)


def _numbers(values: list[Any]) -> np.ndarray | None:
    """Pixel values as ``uint8``: integers 0–255 as they are, floats within [0, 1] scaled; else
    ``None`` (ragged lists, other values, out of range)."""
    try:
        if type(_first_leaf(values)) is int:
            # The common case, converted straight to bytes (out of range raises OverflowError);
            # only 0s and 1s are looked at again, as they may be floats written without ".0".
            fast = np.asarray(values, dtype=np.uint8)
            if fast.size and fast.max() > 1:
                return fast
        array = np.asarray(values)
    except (ValueError, TypeError, OverflowError):
        return None
    if array.size == 0:
        return None
    if array.dtype.kind in "iu":
        return array.astype(np.uint8) if array.min() >= 0 and array.max() <= 255 else None
    if array.dtype.kind == "f" and array.min() >= 0 and array.max() <= 1:  # NaN fails both
        return np.rint(array * 255).astype(np.uint8)
    return None


def _first_leaf(values: Any) -> Any:
    for _ in range(4):
        if not isinstance(values, list) or not values:
            break
        values = values[0]
    return values


def _rgb(array: np.ndarray) -> np.ndarray | None:
    """``array`` (H×W, or H×W×1/3/4) as H×W×3 ``uint8``, or ``None`` when it is no image."""
    if array.dtype != np.uint8 or array.ndim not in (2, 3) or not _fits(*array.shape[:2]):
        return None
    if array.ndim == 3:
        channels = array.shape[2]
        if channels not in (1, 3, 4):
            return None
        array = array[:, :, 0] if channels == 1 else array[:, :, :3]
    if array.ndim == 2:
        return np.repeat(array[:, :, None], 3, axis=2)
    return np.ascontiguousarray(array)


_DATA_URL = re.compile(r"data:image/[a-z0-9.+-]+;base64,", re.IGNORECASE)
_BASE64_HEADS = ("iVBORw0KGgo", "/9j/")  # a PNG's and a JPEG's first bytes, in base64


def _image(text: str) -> np.ndarray | None:
    """The pixels of a base64 PNG or JPEG (or such a ``data:`` URL), else ``None``."""
    if len(text) > MAX_IMAGE_TEXT:
        return None
    body = text.strip()
    url = _DATA_URL.match(body)
    if url is not None:
        body = body[url.end() :]
    if not body.startswith(_BASE64_HEADS):
        return None
    body = "".join(body.split())  # base64 wrapped over lines
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _decoded(raw)


def _decoded(raw: bytes) -> np.ndarray | None:
    try:
        with Image.open(io.BytesIO(raw), formats=("PNG", "JPEG")) as image:
            width, height = image.size  # from the header: nothing is decoded yet
            if not _fits(height, width):
                return None
            return np.asarray(image.convert("RGB"), dtype=np.uint8)
    except _DECODE_ERRORS:
        return None


def _encoded(value: dict[str, Any]) -> np.ndarray | None:
    """One of this framework's frame encodings (a server of ours, or an episode file)."""
    try:
        array = decode_frame(value, max_bytes=MAX_BYTES)
    except _DECODE_ERRORS:
        return None
    return _rgb(np.asarray(array))


# -- chess ------------------------------------------------------------------------------------

PIECES = dict(zip("KQRBNPkqrbnp", "♔♕♖♗♘♙♚♛♜♝♞♟", strict=True))
LIGHT, DARK, INK = "#f0d9b5", "#b58863", "#111827"
FILES = "abcdefgh"
_FEN_TAIL = re.compile(r"[wb] (-|[KQkqA-Ha-h]{1,4}) (-|[a-h][36]) \d{1,4} \d{1,5}")


def _chess(obs: dict[str, Any], names: list[str]) -> tuple[View | None, tuple[str, ...]]:
    for name in names:
        value = obs[name]
        board = _fen_board(value) if isinstance(value, str) and len(value) <= 100 else None
        if board is not None:
            return board, (name,)
    return None, ()


def _fen_board(text: str) -> Board | None:
    """The board of a FEN position, or ``None`` when ``text`` is not one."""
    parts = text.split()
    if len(parts) != 6 or not _FEN_TAIL.fullmatch(" ".join(parts[1:])):
        return None
    ranks = [_rank(rank) for rank in parts[0].split("/")]
    if len(ranks) != 8 or None in ranks:
        return None
    rows = [
        [_square(piece, r, c) for c, piece in enumerate(rank or "")] for r, rank in enumerate(ranks)
    ]
    return Board(rows, caption=f"{'White' if parts[1] == 'w' else 'Black'} to move")


def _rank(rank: str) -> str | None:
    """A FEN rank spelled out square by square (a space per empty one), if it holds eight."""
    squares = "".join(" " * int(c) if c in "12345678" else c for c in rank)
    if len(squares) != 8 or any(c != " " and c not in PIECES for c in squares):
        return None
    return squares


def _square(piece: str, row: int, col: int) -> Cell:
    return Cell(
        glyph=PIECES.get(piece, ""),
        color=INK if piece in PIECES else None,
        background=LIGHT if (row + col) % 2 == 0 else DARK,  # a8, top left, is light
        label=f"{FILES[col]}{8 - row}",
    )


# -- text -------------------------------------------------------------------------------------


def _text(obs: dict[str, Any], names: list[str]) -> tuple[View | None, tuple[str, ...]]:
    parts: list[tuple[str, str]] = []
    size = 0
    for name in names:
        if size > MAX_TEXT:
            break
        said = _said(name, obs[name])
        if said:
            parts.append((name, said))
            size += len(said)
    if not parts:
        return None, ()
    text = parts[0][1] if len(parts) == 1 else "\n\n".join(f"[{n}]\n{t}" for n, t in parts)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + "\n… (truncated)"
    return Text(text), tuple(n for n, _ in parts)


def _said(name: str, value: Any) -> str:
    """The text of one field for people, or ``""``."""
    if name == "messages" and isinstance(value, list):
        return _messages(value)
    if isinstance(value, str) and value.strip() and (_named(name, TEXT_NAMES) or "\n" in value):
        return value
    return ""


def _messages(messages: list[Any]) -> str:
    said: list[str] = []
    size = 0
    for message in messages:
        if size > MAX_TEXT:
            break
        if isinstance(message, dict) and "content" in message:
            content = _content(message["content"])
            role = message.get("role")
            said.append(f"{role}: {content}" if isinstance(role, str) and role else content)
            size += len(said[-1]) + 2
    return "\n\n".join(said)


def _content(content: Any) -> str:
    """A message's content: a string, or the texts of a list of parts (``{"text": ...}``)."""
    if isinstance(content, str):
        return content[: MAX_TEXT + 1]
    if isinstance(content, list):
        texts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "\n".join(texts)[: MAX_TEXT + 1]
    return str(content)[: MAX_TEXT + 1]


# -- buttons ----------------------------------------------------------------------------------


def _listed_buttons(
    target: _Target, obs: dict[str, Any], listed: str
) -> tuple[list[ActionChoice], tuple[str, ...]] | None:
    """Rules a and b: a button per entry of the observation's legal list, or ``None`` when the
    list's entries are not what the action's field takes."""
    values = obs[listed]
    if target.kind not in ("integer", "string"):
        return None
    if len(values) > MAX_BUTTONS:
        return [], ()
    if target.kind == "integer" and all(_is_int(v) for v in values):
        labels, names = _labels(obs, values)
        buttons = [_int_button(target.name, v, t) for v, t in zip(values, labels, strict=True)]
        return _distinct(buttons), (listed, *names)
    if target.kind == "string" and all(isinstance(v, str) for v in values):
        return _distinct([ActionChoice(v[:MAX_LABEL], {target.name: v}) for v in values]), (listed,)
    return None


def _int_button(field: str, value: int, label: str) -> ActionChoice:
    description = f"{field} {value}" if label != str(value) else ""
    return ActionChoice(label, {field: value}, description=description)


def _labels(obs: dict[str, Any], values: list[int]) -> tuple[list[str], tuple[str, ...]]:
    """The label of each legal integer, and the observation field the names came from (none:
    the integers themselves)."""
    for name in NAMES_BY_ID + NAMES_IN_STEP:
        names = obs.get(name)
        if not isinstance(names, list):
            continue
        if name in NAMES_BY_ID and all(0 <= v < len(names) for v in values):
            return [_name(names[v], v) for v in values], (name,)
        if len(names) == len(values):
            return [_name(n, v) for n, v in zip(names, values, strict=True)], (name,)
    return [str(v) for v in values], ()


def _name(name: Any, value: int) -> str:
    text = name if isinstance(name, str) else "" if name is None else str(name)
    return text.strip()[:MAX_LABEL] or str(value)


def _distinct(buttons: list[ActionChoice]) -> list[ActionChoice]:
    """``buttons`` without repeated actions (a legal list that names one twice)."""
    seen: set[str] = set()
    kept = []
    for button in buttons:
        key = repr(button.action)
        if key not in seen:
            seen.add(key)
            kept.append(button)
    return kept


def _enum_buttons(target: _Target | None) -> list[ActionChoice]:
    """Rule c: a button per value of an enum or ``Literal`` field, obvious ones with a key."""
    if target is None or not target.values or len(target.values) > MAX_BUTTONS:
        return []
    buttons, taken = [], set()
    for value in target.values:
        key = KEYS.get(value.lower()) if isinstance(value, str) else None
        if key in taken:
            key = None  # "up" and "north" both: the first keeps the arrow
        taken.add(key)
        buttons.append(ActionChoice(str(value)[:MAX_LABEL], {target.name: value}, key=key))
    return _distinct(buttons)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- schemas ----------------------------------------------------------------------------------


def _target(schema: Any) -> _Target | None:
    """The one action field buttons can fill: the only required one, or the only field."""
    props = _properties(schema)
    props.pop("metadata", None)  # wire plumbing every reference action has
    required = schema.get("required") if isinstance(schema, dict) else None
    required = [n for n in required if n in props] if isinstance(required, list) else []
    if len(required) == 1:
        name = required[0]
    elif not required and len(props) == 1:
        name = next(iter(props))
    else:
        return None
    prop = props[name]
    enum = prop.get("enum")
    values = enum if isinstance(enum, list) else [prop["const"]] if "const" in prop else []
    return _Target(name, _type(prop), tuple(v for v in values if v is not None))


def _properties(schema: Any) -> dict[str, dict[str, Any]]:
    """An object schema's properties, each resolved (see :func:`_resolve`)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return {}
    defs = schema.get("$defs") if isinstance(schema.get("$defs"), dict) else {}
    return {
        name: _resolve(prop, defs or {})
        for name, prop in schema["properties"].items()
        if isinstance(name, str)
    }


def _resolve(prop: Any, defs: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """``prop`` with ``$ref``, ``allOf`` and an ``anyOf``/``oneOf`` with ``null`` resolved
    (``{}``: a union of several types, or a schema too deep to follow)."""
    if not isinstance(prop, dict) or depth > MAX_DEPTH:
        return {}
    if isinstance(prop.get("$ref"), str):
        return _resolve(defs.get(prop["$ref"].rsplit("/", 1)[-1]), defs, depth + 1)
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list):
        real = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        return _resolve(real[0], defs, depth + 1) if len(real) == 1 else {}
    parts = prop.get("allOf")
    if isinstance(parts, list):
        merged = {k: v for k, v in prop.items() if k != "allOf"}
        for part in parts:
            merged.update(_resolve(part, defs, depth + 1))
        return merged
    return prop


def _type(prop: dict[str, Any]) -> str | None:
    """A resolved schema's one JSON type (``["string", "null"]`` is a string), else the type
    of its enum's values when they share one."""
    kind = prop.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if isinstance(kind, str):
        return kind
    values = prop.get("enum")
    if isinstance(values, list) and values:
        if all(_is_int(v) for v in values):
            return "integer"
        if all(isinstance(v, str) for v in values):
            return "string"
    return None
