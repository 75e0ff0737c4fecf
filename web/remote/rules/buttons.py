"""The buttons: rules a to d (see the package's rules)."""

from __future__ import annotations

from typing import Any

from openenv.core.views import ActionChoice
from openenv.web.remote.rules.bounds import (
    KEYS,
    MAX_BUTTONS,
    MAX_LABEL,
    NAMES_BY_ID,
    NAMES_IN_STEP,
    is_int,
)
from openenv.web.remote.rules.schema import Target


def listed_buttons(
    target: Target, obs: dict[str, Any], listed: str
) -> tuple[list[ActionChoice], tuple[str, ...]] | None:
    """Rules a and b: a button per entry of the observation's legal list, or ``None`` when the
    list's entries are not what the action's field takes."""
    values = obs[listed]
    if target.kind not in ("integer", "string"):
        return None
    if len(values) > MAX_BUTTONS:
        return [], ()
    if target.kind == "integer" and all(is_int(v) for v in values):
        labels, names = _labels(obs, values)
        if not names:  # the observation names none: the schema's names, or "column 3"
            labels = [target.label(v) for v in values]
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


def enum_buttons(target: Target | None) -> list[ActionChoice]:
    """Rule c: a button per value of an enum or ``Literal`` field, obvious ones with a key."""
    if target is None or not target.values or len(target.values) > MAX_BUTTONS:
        return []
    buttons, taken = [], set()
    for value in target.values:
        key = KEYS.get(value.lower()) if isinstance(value, str) else None
        if key in taken:
            key = None  # "up" and "north" both: the first keeps the arrow
        taken.add(key)
        buttons.append(ActionChoice(target.label(value), {target.name: value}, key=key))
    return _distinct(buttons)
