"""What the rules read from the action and observation schemas: the one field buttons fill,
the names of its values, and the editors (see the package's rules)."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from openenv.web.remote.rules.bounds import (
    EDITOR_NAMES,
    MAX_BUTTONS,
    MAX_DEPTH,
    MAX_LABEL,
    MAX_RANGE,
    MAX_TEXT,
    is_int,
    named,
)


@dataclass(frozen=True)
class Target:
    """The action field buttons fill: its name, JSON type, the values it takes if the schema
    lists them, and the names the schema gives integer values."""

    name: str
    kind: str | None
    values: tuple[Any, ...] = ()
    names: tuple[tuple[int, str], ...] = ()

    def label(self, value: Any) -> str:
        """An integer's name from the schema, else ``field value`` (``column 3``)."""
        named = dict(self.names).get(value) if is_int(value) else None
        if named:
            return named[:MAX_LABEL]
        return (
            f"{self.name.replace('_', ' ')} {value}"[:MAX_LABEL]
            if is_int(value)
            else str(value)[:MAX_LABEL]
        )


def target_of(schema: Any) -> Target | None:
    """The one action field buttons can fill: the only required one, or the only field."""
    props = properties(schema)
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
    raw = (schema.get("properties") or {}).get(name) if isinstance(schema, dict) else None
    constants = _constants(raw)
    enum = prop.get("enum")
    values = enum if isinstance(enum, list) else [prop["const"]] if "const" in prop else []
    values = values or [v for v, _ in constants] or _range(prop)
    kind = type_of(prop) or ("integer" if constants and all(is_int(v) for v in values) else None)
    names = _int_names(prop, raw, constants)
    return Target(name, kind, tuple(v for v in values if v is not None), names)


def _constants(raw: Any) -> list[tuple[Any, str]]:
    """``oneOf``/``anyOf`` constants of a property and the title (or description) of each."""
    if not isinstance(raw, dict):
        return []
    options = raw.get("oneOf") or raw.get("anyOf")
    if not isinstance(options, list) or len(options) > MAX_BUTTONS:
        return []
    found = []
    for option in options:
        if isinstance(option, dict) and "const" in option:
            text = option.get("title") or option.get("description") or ""
            found.append((option["const"], text if isinstance(text, str) else ""))
    return found if len(found) == len(options) else []


def _range(prop: dict[str, Any]) -> list[int]:
    """Rule d: the integers from ``minimum`` to ``maximum``, when there are few."""
    low, high = prop.get("minimum"), prop.get("maximum")
    if type_of(prop) != "integer" or not (is_int(low) and is_int(high)):
        return []
    return list(range(low, high + 1)) if 0 < high - low + 1 <= MAX_RANGE else []


_LISTED = re.compile(r"(-?\d+)\s*(?:[:=]|->|→)\s*([A-Za-z_][\w ./+-]{0,40}?)\s*(?=[,;)\n]|$)")


def _int_names(
    prop: dict[str, Any], raw: Any, constants: list[tuple[Any, str]]
) -> tuple[tuple[int, str], ...]:
    """Names of integer values: ``x-enum-varnames``/``enumNames`` (beside ``enum``), the
    titles of ``oneOf`` constants, or a description listing ``0: NOOP, 1: FIRE``."""
    for source in (prop, raw if isinstance(raw, dict) else {}):
        listed = source.get("x-enum-varnames") or source.get("enumNames")
        values = source.get("enum")
        if isinstance(listed, list) and isinstance(values, list) and len(listed) == len(values):
            return tuple(
                (v, str(n)) for v, n in zip(values, listed, strict=True) if is_int(v) and n
            )
    if constants:
        return tuple((v, t) for v, t in constants if is_int(v) and t)
    description = prop.get("description")
    if isinstance(description, str) and len(description) <= MAX_TEXT:
        found = [(int(v), n.strip()) for v, n in _LISTED.findall(description)]
        if len(found) >= 2:
            return tuple(found)
    return ()


def properties(schema: Any) -> dict[str, dict[str, Any]]:
    """An object schema's properties, each resolved (see :func:`resolve`)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return {}
    defs = schema.get("$defs") if isinstance(schema.get("$defs"), dict) else {}
    return {
        name: resolve(prop, defs or {})
        for name, prop in schema["properties"].items()
        if isinstance(name, str)
    }


def resolve(prop: Any, defs: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """``prop`` with ``$ref``, ``allOf`` and an ``anyOf``/``oneOf`` with ``null`` resolved
    (``{}``: a union of several types, or a schema too deep to follow)."""
    if not isinstance(prop, dict) or depth > MAX_DEPTH:
        return {}
    if isinstance(prop.get("$ref"), str):
        return resolve(defs.get(prop["$ref"].rsplit("/", 1)[-1]), defs, depth + 1)
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list):
        real = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        return resolve(real[0], defs, depth + 1) if len(real) == 1 else {}
    parts = prop.get("allOf")
    if isinstance(parts, list):
        merged = {k: v for k, v in prop.items() if k != "allOf"}
        for part in parts:
            merged.update(resolve(part, defs, depth + 1))
        return merged
    return prop


def type_of(prop: dict[str, Any]) -> str | None:
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
        if all(is_int(v) for v in values):
            return "integer"
        if all(isinstance(v, str) for v in values):
            return "string"
    return None


# -- editors ----------------------------------------------------------------------------------

_CODE_WORDS = re.compile(
    r"\b(code|python|script|program|source|sql|shell|bash|multi-?line)\b", re.I
)


def editor_hints(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of an action ``schema`` whose string fields for code or prose (see the module
    doc) say ``format: textarea``, so that the action form gives them a multi-line editor.
    A field with a format of its own, an enum or a const keeps it."""
    hinted = copy.deepcopy(schema) if isinstance(schema, dict) else {}
    props = hinted.get("properties")
    if not isinstance(props, dict):
        return hinted
    defs = hinted.get("$defs") if isinstance(hinted.get("$defs"), dict) else {}
    for name, prop in props.items():
        if not isinstance(name, str) or not isinstance(prop, dict) or "format" in prop:
            continue
        resolved = resolve(prop, defs or {})
        if type_of(resolved) != "string" or "enum" in resolved or "const" in resolved:
            continue
        description = resolved.get("description") or prop.get("description") or ""
        described = isinstance(description, str) and _CODE_WORDS.search(description)
        if named(name, EDITOR_NAMES) or described:
            prop["format"] = "textarea"
    return hinted
