"""Forms generated from JSON schemas: the action form, the reset options, tool arguments and
the typed action on the stage (one description of a field, :class:`FieldSpec`, for all).

:func:`fields_from_schema` turns a pydantic model's JSON schema into :class:`FieldSpec` objects
(enums become choices, booleans checkboxes, numbers keep their bounds, strings text boxes, or
open drop-downs when the schema lists ``examples``, lists and objects JSON text boxes);
:func:`fields_from_model` does it for an action model, whose hand-written schemas of ``Any``
fields are only hints. :func:`parse_values` turns what the
visitor typed back into a dict, or into a list of readable errors, one per bad field.

An optional field of choices whose default is none (a task picker's ``task_source``) also
offers :data:`NONE_CHOICE` (picked at first; a free string with suggestions starts blank):
choosing it clears the field (left out, as blank), so a visitor goes back to "none" without
reloading the page.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["enum", "bool", "int", "number", "string", "json"]
NONE_CHOICE = "(none)"  # the choice that clears an optional field of choices


@dataclass(frozen=True)
class FieldSpec:
    """One form field: what to draw and how to read it back."""

    name: str
    kind: Kind
    required: bool = False
    default: Any = None
    description: str = ""
    choices: tuple[Any, ...] = ()
    suggestions: tuple[str, ...] = ()  # known values of a string (schema examples), not the only
    minimum: float | None = None
    maximum: float | None = None
    exclusive: tuple[bool, bool] = (False, False)
    json_type: str | None = None  # "array" or "object" for JSON fields
    multiline: bool = False  # a string written over several lines (``format: textarea``)
    example: Any = None  # a value of the field's shape, for JSON fields (what to start from)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name if self.required else f"{self.name} (optional)"

    @property
    def clearable(self) -> bool:
        """An optional field of choices (or suggestions) with no default: it offers
        :data:`NONE_CHOICE`, which leaves it out."""
        picked = self.kind == "enum" or (self.kind == "string" and bool(self.suggestions))
        return picked and not self.required and self.default is None

    def offered(self) -> list[str]:
        """The choices (or suggestions) as the form lists them, :data:`NONE_CHOICE` first
        when the field is clearable."""
        listed = [str(c) for c in (self.choices if self.kind == "enum" else self.suggestions)]
        return [NONE_CHOICE, *listed] if self.clearable else listed

    def _bounds(self) -> str:
        low_op, high_op = ("<" if strict else "≤" for strict in self.exclusive)
        low = "" if self.minimum is None else f"{self.minimum:g} {low_op} "
        high = "" if self.maximum is None else f" {high_op} {self.maximum:g}"
        return f"{low}value{high}"

    def hint(self) -> str:
        """A one-line help text: description, bounds, JSON shape."""
        parts = [self.description] if self.description else []
        if self.minimum is not None or self.maximum is not None:
            parts.append(self._bounds())
        if self.kind == "json":
            parts.append(f"JSON {self.json_type or 'value'}")
        return " · ".join(parts)


# Wire plumbing every action inherits, never offered to people as something to act on.
PLUMBING = ("metadata",)
STAGE_KINDS = ("string", "int", "number")  # what the stage's typed action takes
MAX_STAGE_FIELDS = 3


def fields_from_schema(schema: dict[str, Any], skip: Sequence[str] = PLUMBING) -> list[FieldSpec]:
    """Form fields for the properties of an object schema (``$ref`` and ``anyOf`` resolved),
    without the wire's plumbing (``metadata``)."""
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    props = schema.get("properties", {})
    return [
        field_from_schema(name, props[name], defs, name in required)
        for name in props
        if name not in skip
    ]


def fields_from_model(model: Any) -> list[FieldSpec]:
    """Form fields for a pydantic model (an action). A field typed ``Any`` whose schema was
    written for it (``WithJsonSchema``) describes one case only, such as the action space of the
    task a server starts with, while the environment takes others after a reset: it is read back
    as plain JSON, and the environment checks it."""
    loose = {name for name, info in model.model_fields.items() if info.annotation is Any}
    return [
        dataclasses.replace(spec, kind="json", json_type=None, minimum=None, maximum=None)
        if spec.name in loose and spec.kind != "json"
        else spec
        for spec in fields_from_schema(model.model_json_schema())
    ]


def stage_fields(model: Any) -> list[FieldSpec]:
    """The fields of an action typed on the stage itself (a word, a number, code): its text and
    number fields when there are a few, and every other field is an optional yes/no (left to
    its default, as the REPL's ``is_final``); else none. Beside a text area (code) only the
    required ones."""
    specs = fields_from_model(model)
    typed = [s for s in specs if s.kind in STAGE_KINDS]
    others = [s for s in specs if s.kind not in STAGE_KINDS]
    optional_flags = all(s.kind == "bool" and not s.required for s in others)
    if not 0 < len(typed) <= MAX_STAGE_FIELDS or not optional_flags:
        return []
    if any(s.multiline for s in typed):  # code: the text area, and what else is required
        typed = [s for s in typed if s.multiline or s.required]
    return sorted(typed, key=lambda s: not s.multiline)


def field_from_schema(
    name: str, prop: dict[str, Any], defs: dict[str, Any], required: bool
) -> FieldSpec:
    resolved = _resolve(prop, defs)
    common: dict[str, Any] = {
        "extra": {"spread": True} if prop.get(SPREAD) else {},
        "name": name,
        "required": required,
        "default": prop.get("default", resolved.get("default")),
        "description": prop.get("description") or resolved.get("description") or "",
    }
    if "enum" in resolved or "const" in resolved:
        choices = tuple(resolved.get("enum", [resolved.get("const")]))
        return FieldSpec(kind="enum", choices=choices, **common)
    kind = resolved.get("type")
    if kind == "boolean":
        return FieldSpec(kind="bool", **common)
    if kind in ("integer", "number"):
        return FieldSpec(
            kind="int" if kind == "integer" else "number",
            minimum=_first(resolved, "minimum", "exclusiveMinimum"),
            maximum=_first(resolved, "maximum", "exclusiveMaximum"),
            exclusive=("exclusiveMinimum" in resolved, "exclusiveMaximum" in resolved),
            **common,
        )
    if kind == "string":
        examples = resolved.get("examples")
        suggestions = tuple(map(str, examples)) if isinstance(examples, list) else ()
        multiline = resolved.get("format") == "textarea"
        return FieldSpec(kind="string", suggestions=suggestions, multiline=multiline, **common)
    json_type = kind if kind in ("array", "object") else None
    return FieldSpec(kind="json", json_type=json_type, example=example_value(resolved), **common)


def example_value(schema: dict[str, Any], depth: int = 0) -> Any:
    """A small value of the shape ``schema`` describes (the skeleton a JSON field starts from)."""
    if not isinstance(schema, dict):  # a boolean schema (``items: false`` of a tuple): nothing
        return None
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return example_value(next((o for o in options if o.get("type") != "null"), {}), depth)
    kind = schema.get("type")
    if kind == "object" and depth < 4:
        props = schema.get("properties", {})
        required = schema.get("required", list(props))
        return {name: example_value(props[name], depth + 1) for name in required if name in props}
    if kind == "array" and depth < 4:
        return [example_value(schema.get("items", {}), depth + 1)]
    return {"string": "", "integer": 0, "number": 0.0, "boolean": False}.get(kind or "")


def _resolve(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in prop:
        return _resolve(defs.get(prop["$ref"].rsplit("/", 1)[-1], {}), defs)
    options = [p for p in prop.get("anyOf", prop.get("oneOf", [])) if p.get("type") != "null"]
    if len(options) == 1:
        return {**_resolve(options[0], defs), **{k: v for k, v in prop.items() if k != "anyOf"}}
    if options:
        return {}  # a union of several types: edited as JSON
    if "allOf" in prop and len(prop["allOf"]) == 1:
        return _resolve(prop["allOf"][0], defs)
    return prop


def _first(schema: dict[str, Any], *keys: str) -> float | None:
    for key in keys:
        if isinstance(schema.get(key), int | float):
            return float(schema[key])
    return None


def reset_fields(env_cls: Any) -> list[FieldSpec]:
    """Form fields for an environment's reset options: its ``reset_schema()`` (the options its
    ``reset`` declares; a remote server's, for the playground in front of one)."""
    return fields_from_schema(env_cls.reset_schema()) if env_cls is not None else []


SPREAD = "x-openenv-spread"  # a JSON object field whose keys are options themselves


def spread(specs: Sequence[FieldSpec], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the values of spread fields (a free-form box of more reset options)
    merged in as options of their own; options named by their own fields win."""
    merged = dict(data)
    for spec in specs:
        if spec.extra.get("spread") and isinstance(merged.get(spec.name), dict):
            extra = merged.pop(spec.name)
            merged = {**extra, **merged}
    return merged


def initial_value(spec: FieldSpec) -> Any:
    """What the form shows before the visitor types anything."""
    if spec.kind == "json":
        return "" if spec.default is None else json.dumps(spec.default)
    if spec.kind == "bool":
        return bool(spec.default)
    if spec.clearable and spec.kind == "enum":  # a free text starts blank: typing filters
        return NONE_CHOICE
    return spec.default


def parse_values(
    specs: Sequence[FieldSpec], values: Sequence[Any]
) -> tuple[dict[str, Any], list[str]]:
    """Read the form back: ``(data, errors)``; blank optional fields are left out of ``data``."""
    data: dict[str, Any] = {}
    errors: list[str] = []
    for spec, raw in zip(specs, values, strict=True):
        try:
            value = parse_value(spec, raw)
        except ValueError as exc:
            errors.append(f"{spec.name}: {exc}")
            continue
        if value is not _BLANK:
            data[spec.name] = value
    return data, errors


_BLANK = object()


def parse_value(spec: FieldSpec, raw: Any) -> Any:
    """One field's value; raises ValueError with a message the visitor can act on."""
    if spec.clearable and raw == NONE_CHOICE and NONE_CHOICE not in spec.choices:
        raw = None
    if _is_blank(raw) and spec.kind != "bool":
        if spec.required:
            hint = f" (one of {', '.join(map(str, spec.choices))})" if spec.choices else ""
            raise ValueError(f"a value is required{hint}")
        return _BLANK
    if spec.kind == "enum":
        return _parse_enum(spec, raw)
    if spec.kind == "bool":
        return bool(raw)
    if spec.kind in ("int", "number"):
        return _check_bounds(spec, _parse_number(spec, raw))
    if spec.kind == "string":
        return str(raw)
    return _parse_json(spec, raw)


def _is_blank(raw: Any) -> bool:
    return raw is None or (isinstance(raw, str) and not raw.strip()) or raw == []


def _parse_enum(spec: FieldSpec, raw: Any) -> Any:
    for choice in spec.choices:
        if raw == choice or str(raw) == str(choice):
            return choice
    raise ValueError(f"{raw!r} is not one of {', '.join(map(str, spec.choices))}")


def _parse_number(spec: FieldSpec, raw: Any) -> float | int:
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"{raw!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError("must be a finite number")
    if spec.kind == "int":
        if not number.is_integer():
            raise ValueError(f"{raw!r} is not a whole number")
        return int(number)
    return number


def _check_bounds(spec: FieldSpec, number: float | int) -> float | int:
    low_strict, high_strict = spec.exclusive
    if spec.minimum is not None and (
        number < spec.minimum or (low_strict and number == spec.minimum)
    ):
        raise ValueError(f"must be {'>' if low_strict else '≥'} {spec.minimum:g}, got {number:g}")
    if spec.maximum is not None and (
        number > spec.maximum or (high_strict and number == spec.maximum)
    ):
        raise ValueError(f"must be {'<' if high_strict else '≤'} {spec.maximum:g}, got {number:g}")
    return number


def _parse_json(spec: FieldSpec, raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at character {exc.pos})") from None
    expected = {"array": list, "object": dict}.get(spec.json_type or "")
    if expected is not None and not isinstance(value, expected):
        raise ValueError(f"must be a JSON {spec.json_type}, got {type(value).__name__}")
    return value
