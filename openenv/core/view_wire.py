"""What an environment draws, on the wire: its view, its buttons and its sliders as JSON.

A server built with this framework answers ``{"type": "view"}`` on ``/ws`` with
``{"type": "view", "data": drawing_to_wire(env.render(), env.legal_actions(),
env.action_sliders())}``, so a playground in front of it (``openenv playground URL``) draws
exactly what the environment's own playground draws. The shapes::

    {"view": null
           | {"kind": "frame", "frame": <a "rows" frame, see openenv.core.frames>,
              "click"?: {...}, "keys"?: {...}}
           | {"kind": "board", "rows": [[{"glyph", "color", "background", "label", "action"?}]],
              "legend": {...}, "caption": "..."}
           | {"kind": "text", "text": "..."}
           | {"kind": "svg", "markup": "..."},
     "legal": [{"label", "action": {...}, "key", "description"}],
     "sliders": null | {"field", "scalar", "action": {...},
                        "sliders": [{"label", "low", "high", "value", "step"}]}}

:func:`drawing_from_wire` reads it back, bounded: what a remote sends is checked, never trusted
(a frame larger than ``max_frame_bytes`` is refused before it is inflated).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from openenv.core.frames import RowsFrame, decode_frame, encode_frame
from openenv.core.views import (
    ActionChoice,
    ActionSliders,
    Board,
    Cell,
    Frame,
    Slider,
    Svg,
    Text,
    View,
)

MAX_FRAME_BYTES = 64 * 1024 * 1024  # 4096 × 4096 × 3 and then some
MAX_CHOICES = 1000  # buttons a remote may offer at once
MAX_BOARD_CELLS = 256 * 256

Drawing = tuple[View | None, list[ActionChoice], ActionSliders | None]


def drawing_of(env: Any) -> Drawing:
    """What a playground shows of ``env`` now: its view, its buttons and its sliders."""
    return env.render(), env.legal_actions(), env.action_sliders()


def view_to_wire(view: View | None) -> dict[str, Any] | None:
    if view is None:
        return None
    if isinstance(view, Frame):
        encoded = encode_frame(view.pixels, "rows")
        assert isinstance(encoded, RowsFrame)  # "rows" is never a plain list
        wire: dict[str, Any] = {"kind": "frame", "frame": encoded.model_dump()}
        wire.update({k: v for k, v in (("click", view.click), ("keys", view.keys)) if v})
        return wire
    if isinstance(view, Board):
        rows = [[_cell_to_wire(cell) for cell in row] for row in view.rows]
        return {"kind": "board", "rows": rows, "legend": view.legend, "caption": view.caption}
    if isinstance(view, Text):
        return {"kind": "text", "text": view.text}
    if isinstance(view, Svg):
        return {"kind": "svg", "markup": view.markup}
    raise TypeError(f"{type(view).__name__} is not a view")


def _cell_to_wire(cell: Cell) -> dict[str, Any]:
    return {k: v for k, v in asdict(cell).items() if v not in (None, "")}


def choice_to_wire(choice: ActionChoice) -> dict[str, Any]:
    return {
        "label": choice.label,
        "action": choice.fields(),
        "key": choice.key,
        "description": choice.description,
    }


def sliders_to_wire(sliders: ActionSliders | None) -> dict[str, Any] | None:
    if sliders is None:
        return None
    return {
        "field": sliders.field,
        "scalar": sliders.scalar,
        "action": sliders.action,
        "sliders": [asdict(s) for s in sliders.sliders],
    }


def drawing_to_wire(
    view: View | None, legal: list[ActionChoice], sliders: ActionSliders | None
) -> dict[str, Any]:
    return {
        "view": view_to_wire(view),
        "legal": [choice_to_wire(c) for c in legal],
        "sliders": sliders_to_wire(sliders),
    }


# -- reading a remote's drawing -------------------------------------------------------------


def drawing_from_wire(data: Any, max_frame_bytes: int = MAX_FRAME_BYTES) -> Drawing:
    """The view, buttons and sliders in ``data``; ``ValueError`` says what is malformed."""
    if not isinstance(data, dict):
        raise ValueError("a drawing must be a JSON object")
    legal = data.get("legal") or []
    if not isinstance(legal, list) or len(legal) > MAX_CHOICES:
        raise ValueError(f"'legal' must be a list of at most {MAX_CHOICES} choices")
    return (
        view_from_wire(data.get("view"), max_frame_bytes),
        [_choice_from_wire(c) for c in legal],
        _sliders_from_wire(data.get("sliders")),
    )


def view_from_wire(data: Any, max_frame_bytes: int = MAX_FRAME_BYTES) -> View | None:
    if data is None:
        return None
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == "frame":
        pixels = decode_frame(_object(data.get("frame")), max_bytes=max_frame_bytes)
        click, keys = (data.get(k) for k in ("click", "keys"))
        return Frame(
            pixels,
            click=None if click is None else _object(click),
            keys=None if keys is None else _object(keys),
        )
    if kind == "board":
        rows = data.get("rows")
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise ValueError("a board's 'rows' must be a list of lists of cells")
        if sum(len(r) for r in rows) > MAX_BOARD_CELLS:
            raise ValueError(f"a board may have at most {MAX_BOARD_CELLS} cells")
        return Board(
            rows=[[_cell_from_wire(c) for c in row] for row in rows],
            legend={str(k): str(v) for k, v in _object(data.get("legend") or {}).items()},
            caption=str(data.get("caption") or ""),
        )
    if kind == "text":
        return Text(_string(data.get("text"), "text"))
    if kind == "svg":
        return Svg(_string(data.get("markup"), "markup"))
    raise ValueError(f"unknown view kind {kind!r}")


def _cell_from_wire(data: Any) -> Cell:
    cell = _object(data)
    values = {k: cell.get(k) for k in ("glyph", "color", "background", "label")}
    action = cell.get("action")
    return Cell(
        glyph=str(values["glyph"] or ""),
        **{k: None if v is None else str(v) for k, v in values.items() if k != "glyph"},
        action=None if action is None else _object(action),
    )


def _choice_from_wire(data: Any) -> ActionChoice:
    choice = _object(data)
    key = choice.get("key")
    return ActionChoice(
        label=_string(choice.get("label"), "label"),
        action=_object(choice.get("action")),
        key=None if key is None else _string(key, "key"),
        description=str(choice.get("description") or ""),
    )


def _sliders_from_wire(data: Any) -> ActionSliders | None:
    if data is None:
        return None
    sliders = _object(data)
    specs = sliders.get("sliders")
    if not isinstance(specs, list):
        raise ValueError("'sliders' must list the sliders")
    return ActionSliders(
        field=_string(sliders.get("field"), "field"),
        sliders=tuple(Slider(**_slider_fields(s)) for s in specs),
        scalar=bool(sliders.get("scalar")),
        action=_object(sliders.get("action") or {}),
    )


def _slider_fields(data: Any) -> dict[str, Any]:
    slider = _object(data)
    fields = {k: slider.get(k) for k in ("label", "low", "high", "value", "step")}
    if not isinstance(fields["label"], str):
        raise ValueError("a slider needs a label")
    for name in ("low", "high", "value", "step"):
        value = fields[name]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError(f"a slider's {name} must be a number")
    return {k: v for k, v in fields.items() if v is not None}


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value


def _string(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what!r} must be a string")
    return value
