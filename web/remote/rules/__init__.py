"""How the playground draws what a remote server sends: one rule set, read from the server's
``/schema`` and from each observation. (A server built with this framework sends its own views
instead: :mod:`openenv.core.view_wire`.)

The rules are written here, in one place a user is pointed to; each rule's reader has its
module: :mod:`.frames` (1), :mod:`.boards` (2, 3), :mod:`.text` (4), :mod:`.buttons` (a–d),
:mod:`.schema` (what is read from the schemas, and the editors), :mod:`.bounds`.

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
3. *A grid.* A rectangular list of rows (at most 64 × 64) of integers, finite numbers or short
   strings (up to 3 characters), in a field or in ``metadata`` (also as a JSON string there):
   a board. Integers with at most 12 distinct values are categories, each a colour of the
   palette (``0`` and ``""`` empty), named in the legend, their numbers written on the squares
   when there are more than three kinds (sudoku, 2048) and left as colours otherwise (pieces:
   connect four's ``1``/``-1``); other numbers are shaded from their lowest (light) to their
   highest (dark); strings are written on their squares. Each square is titled with its field,
   row, column and value.
4. *Text.* ``messages`` (a list of ``{"role", "content"}``, drawn ``role: content``) and string
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
d. The action's one required field is an integer from ``minimum`` to ``maximum`` (at most
   :data:`MAX_RANGE` values), or ``oneOf``/``anyOf`` constants: a button per value.

Integer buttons are named, when the observation does not name them (rule a), by the schema:
``x-enum-varnames``/``enumNames``, the ``title`` or ``description`` of a ``oneOf`` constant, or
a field description that lists them (``0: NOOP, 1: FIRE`` or ``0=up, 1=down``); else by the
field and the number (``column 3``).

**Editors.** :func:`editor_hints` marks the action's string fields meant for code or prose
(named ``code``, ``script``, ``source``, ``program``, ``command``, ``text``, ``content``,
``message``, ``prompt``, ``query``, ``answer``... or described as code) ``format: textarea``:
the action form gives them a multi-line editor, so newlines reach the remote.

More than 200 choices make no buttons, and none is also an answer ("nothing is legal now");
the action form works either way.

**Always.** Fields are read in the order of the server's observation schema, then the
observation's own order. ``metadata``, ``reward`` and ``done`` are never drawn, nor fields the
schema types as numbers or booleans. A field that breaks a rule (a wrong shape, bad base64, an
image too large) is skipped, never an error. The fields a view or the buttons used are not
shown again among the observation's fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openenv.core.views import ActionChoice, View
from openenv.web.remote.rules.boards import chess_view, grid_view
from openenv.web.remote.rules.bounds import (
    FRAME_NAMES,
    LEGAL_NAMES,
    MAX_BUTTONS,
    MAX_PLANS,
    MAX_TEXT,
    PLUMBING,
    SCALARS,
    named,
)
from openenv.web.remote.rules.buttons import enum_buttons, listed_buttons
from openenv.web.remote.rules.frames import frame_view
from openenv.web.remote.rules.schema import editor_hints, properties, target_of, type_of
from openenv.web.remote.rules.text import text_view

__all__ = ["MAX_BUTTONS", "MAX_TEXT", "Reading", "Rules", "editor_hints"]


@dataclass(frozen=True)
class Reading:
    """What the rules made of one observation."""

    view: View | None  # what the stage draws
    legal: list[ActionChoice]  # a button per action the visitor can take now ([]: none known)
    drawn: tuple[str, ...] = ()  # the fields the view and the buttons used


Plan = tuple[list[str], list[str]]  # the fields in reading order, and in frame order


class Rules:
    """The rules for one remote server, prepared from its schemas (``read`` runs every step)."""

    def __init__(
        self, action_schema: dict[str, Any], observation_schema: dict[str, Any] | None = None
    ) -> None:
        self._target = target_of(action_schema)
        self._choices = enum_buttons(self._target)
        props = properties(observation_schema)
        self._order = {name: i for i, name in enumerate(props)}
        self._scalars = frozenset(n for n, p in props.items() if type_of(p) in SCALARS)
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
            frames = sorted(names, key=lambda n: not named(n, FRAME_NAMES))
            if len(self._plans) >= MAX_PLANS:
                self._plans.clear()
            plan = self._plans[key] = (names, frames)
        return plan

    def _buttons(self, obs: dict[str, Any]) -> tuple[list[ActionChoice], tuple[str, ...]]:
        target = self._target
        listed = next((n for n in LEGAL_NAMES if isinstance(obs.get(n), list)), None)
        if target is not None and listed is not None:
            found = listed_buttons(target, obs, listed)
            if found is not None:
                return found
        return list(self._choices), ()


# -- the view ---------------------------------------------------------------------------------


def _view(
    obs: dict[str, Any], names: list[str], frames: list[str]
) -> tuple[View | None, tuple[str, ...]]:
    found = frame_view(obs, frames)
    if found[0] is None:
        found = chess_view(obs, names)
    if found[0] is None:
        found = grid_view(obs, names)
    if found[0] is None:
        found = text_view(obs, names)
    return found
