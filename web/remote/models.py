"""Wire classes for a remote server, made from its ``/schema``.

The playground's forms, its stage's typed action and its first check of an action all read a
pydantic model, so the remote's action schema becomes one: each property a field of the type
its schema names (an enum or ``const`` a ``Literal``, ``null`` in ``anyOf`` an optional, arrays
and objects JSON), required where the schema says, with its default and description. The
model's ``model_json_schema()`` is the remote's own schema, word for word but for
``format: textarea`` on code and text fields (:func:`~openenv.web.remote.rules.editor_hints`),
so the form shows what the remote documents; the remote still validates every action itself
(it is the authority, we are a front door). Observations and states keep every field the
remote sends.
"""

from __future__ import annotations

import copy
import keyword
from typing import Any, ClassVar, Literal, Optional

from pydantic import ConfigDict, Field, create_model

from openenv.core.types import Action, Observation, State
from openenv.web.remote.rules import editor_hints

PLUMBING = ("metadata",)  # fields every wire class has already


class RemoteAction(Action):
    """An action of a remote server; subclasses are made by :func:`action_model`."""

    model_config = ConfigDict(extra="allow")  # what the remote accepts, it judges
    remote_schema: ClassVar[dict[str, Any]] = {}

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return (
            copy.deepcopy(cls.remote_schema) if cls.remote_schema else super().model_json_schema()
        )


class RemoteObservation(Observation):
    """An observation of a remote server: its fields as it sent them."""

    model_config = ConfigDict(extra="allow")


class RemoteState(State):
    """The state of a remote session (``episode_id``, ``step_count`` and the rest)."""

    model_config = ConfigDict(extra="allow")


def action_model(schema: dict[str, Any], name: str = "RemoteAction") -> type[RemoteAction]:
    """A model of the actions ``schema`` describes (see the module docstring)."""
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    fields: dict[str, Any] = {}
    for field_name, prop in (schema.get("properties") or {}).items():
        if field_name in PLUMBING or not _usable(field_name):
            continue
        annotation = _python_type(prop, defs)
        description = prop.get("description")
        if field_name in required:
            fields[field_name] = (annotation, Field(description=description))
        else:
            fields[field_name] = (
                Optional[annotation],  # noqa: UP045 (a runtime type built from data)
                Field(default=prop.get("default"), description=description),
            )
    model = create_model(_class_name(name), __base__=RemoteAction, **fields)
    model.remote_schema = editor_hints(schema)  # code and prose get a multi-line editor
    return model


def _usable(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")


def _class_name(name: str) -> str:
    words = "".join(c if c.isalnum() else " " for c in name).split()
    cleaned = "".join(w[0].upper() + w[1:] for w in words)
    return cleaned if cleaned and cleaned[0].isalpha() else "RemoteAction"


def _python_type(prop: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> Any:
    """The Python type of one property schema (``Any`` where it cannot say more)."""
    if depth > 8 or not isinstance(prop, dict):
        return Any
    if "$ref" in prop:
        target = defs.get(str(prop["$ref"]).rsplit("/", 1)[-1], {})
        return _python_type(target, defs, depth + 1)
    choices = prop.get("enum", [prop["const"]] if "const" in prop else None)
    if (
        isinstance(choices, list)
        and choices
        and all(isinstance(c, str | int | bool) for c in choices)
    ):
        return Literal[tuple(choices)]  # type: ignore[valid-type]
    options = prop.get("anyOf") or prop.get("oneOf")
    if options:
        real = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(real) == 1:
            inner = _python_type(real[0], defs, depth + 1)
            return Optional[inner] if len(real) < len(options) else inner  # noqa: UP045
        return Any
    if isinstance(prop.get("allOf"), list) and len(prop["allOf"]) == 1:
        return _python_type(prop["allOf"][0], defs, depth + 1)
    kind = prop.get("type")
    simple = {"string": str, "integer": int, "number": float, "boolean": bool}
    if kind in simple:
        return simple[kind]
    if kind == "array":
        return list[Any]
    if kind == "object":
        return dict[str, Any]
    return Any
