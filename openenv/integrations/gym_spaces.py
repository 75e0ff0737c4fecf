"""Gymnasium spaces for an OpenEnv server: derived from its ``/schema``, read back from the wire.

A *codec* pairs a ``gymnasium`` space with the conversion between the wire and that space:
:class:`ObservationCodec` turns an observation's fields into an element of its space,
:class:`ActionCodec` turns an element of its space into the fields of an action. The rules
(see :func:`observation_codec` and :func:`action_codec`):

- A field whose state has a ``<field>_space`` description (the shape our Gymnasium adapter
  reports: ``{"type": "Box", "shape", "dtype", "low", "high"}``, ``Discrete``, ``Dict``, ...)
  gets that space: it describes the running environment better than any static schema.
- A frame (:data:`openenv.core.frames.FrameData`) is a ``Box`` of ``uint8``: an H×W×C image
  (a grayscale H×W screen gets C = 1), or the array as it is (a 1-D RAM dump). Its shape is
  read from the observation ``reset()`` returns.
- Numbers (``integer``, ``number``, ``boolean``; lists of them) are ``float32`` ``Box``es with
  the schema's ``minimum``/``maximum`` (else infinite). Several become one flat vector.
- An action field with an ``enum``, a bounded ``integer`` or a ``boolean`` is ``Discrete``
  (index ``i`` sends the ``i``-th value); an unbounded integer with ``legal_actions`` in the
  observation is ``Discrete`` over those (Atari's action set); bounded ``number`` fields are a
  ``Box``.

Importing this module needs ``gymnasium`` (the ``sb3`` or ``gymnasium`` extra).

(Over 400 lines: the schema's reading, the observation codecs and the action codecs are one
set of rules; split, each half would restate the other's field model.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from openenv.core.frames import decode_frame

# Fields every observation and action has that are not part of the environment's data.
BOOKKEEPING = frozenset({"done", "reward", "metadata"})
FRAME_MODELS = frozenset({"RowsFrame", "EncodedFrame"})
NUMBER_TYPES = frozenset({"integer", "number", "boolean"})
SPACE_SUFFIX = "_space"  # the state key describing a field's space: observation_space, ...


class NoSpace(ValueError):
    """No Gymnasium space can be derived for a field; the message says what to pass instead."""


# -- the schema ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One property of a JSON schema, its ``$ref`` and ``null`` branches resolved."""

    name: str
    schema: dict[str, Any]  # the non-null branch (or the anyOf of several)
    nullable: bool
    frame: bool

    @property
    def type(self) -> str | None:
        kind = self.schema.get("type")
        return kind if isinstance(kind, str) else None

    @property
    def untyped(self) -> bool:
        """``Any`` in the model: the schema says nothing about the value."""
        return not ({"type", "anyOf", "enum", "const", "$ref"} & self.schema.keys())


def fields_of(model_schema: Mapping[str, Any]) -> dict[str, Field]:
    """The properties of a model's JSON schema (``/schema``'s action or observation)."""
    defs = model_schema.get("$defs", {})
    return {
        name: _field(name, prop, defs)
        for name, prop in (model_schema.get("properties") or {}).items()
    }


def _field(name: str, prop: dict[str, Any], defs: Mapping[str, Any]) -> Field:
    branches = prop.get("anyOf")
    if not isinstance(branches, list):
        return Field(name, _deref(prop, defs), nullable=False, frame=_is_frame_def(prop, defs))
    solid = [b for b in branches if b.get("type") != "null"]
    frame = any(_is_frame_def(b, defs) for b in solid)
    schema = _deref(solid[0], defs) if len(solid) == 1 else {"anyOf": solid}
    return Field(name, schema, nullable=len(solid) < len(branches), frame=frame)


def _deref(prop: dict[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    ref = prop.get("$ref")
    if not isinstance(ref, str):
        return prop
    target = defs.get(ref.rsplit("/", 1)[-1], {})
    return {**target, **{k: v for k, v in prop.items() if k != "$ref"}}


def _is_frame_def(prop: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
    ref = prop.get("$ref")
    return isinstance(ref, str) and ref.rsplit("/", 1)[-1] in FRAME_MODELS


def bounds(schema: Mapping[str, Any]) -> tuple[float, float]:
    """A number's ``minimum``/``maximum`` (exclusive bounds of integers made inclusive)."""
    low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
    step = 1 if schema.get("type") == "integer" else 0
    if "exclusiveMinimum" in schema:
        low = schema["exclusiveMinimum"] + step
    if "exclusiveMaximum" in schema:
        high = schema["exclusiveMaximum"] - step
    if schema.get("type") == "boolean":
        low, high = 0, 1
    return float(low), float(high)


def numeric(field: Field) -> bool:
    """A number, or a (nested) list of numbers."""
    schema = field.schema
    while schema.get("type") == "array":
        schema = schema.get("items") or {}
        if not isinstance(schema, dict):
            return False
    return schema.get("type") in NUMBER_TYPES


def fixed_size(field: Field) -> bool:
    """A scalar, or a list whose schema fixes its length (``minItems == maxItems``)."""
    schema = field.schema
    if schema.get("type") != "array":
        return True
    size = schema.get("maxItems")
    return size is not None and schema.get("minItems") == size


def _leaf(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    while schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        schema = schema["items"]
    return schema


# -- space descriptions (the state's <field>_space) ----------------------------------------


def space_from_description(desc: Mapping[str, Any]) -> spaces.Space[Any]:
    """The space a description of ``gymnasium_env``'s ``describe()`` stands for."""
    kind = desc.get("type")
    if kind == "Discrete":
        return spaces.Discrete(int(desc["n"]), start=int(desc.get("start", 0)))
    if kind == "Box":
        shape, dtype = tuple(desc["shape"]), np.dtype(desc.get("dtype", "float32"))
        low, high = _limits(desc.get("low"), -np.inf), _limits(desc.get("high"), np.inf)
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            low, high = np.nan_to_num(low, neginf=info.min), np.nan_to_num(high, posinf=info.max)
        low, high = (_shaped(side, shape).astype(dtype) for side in (low, high))
        return spaces.Box(low, high, shape, dtype)
    if kind == "MultiDiscrete":
        return spaces.MultiDiscrete(desc["nvec"])
    if kind == "MultiBinary":
        return spaces.MultiBinary(desc["n"])
    if kind == "Tuple":
        return spaces.Tuple([space_from_description(d) for d in desc["spaces"]])
    if kind == "Dict":
        return spaces.Dict({k: space_from_description(d) for k, d in desc["spaces"].items()})
    raise NoSpace(f"the server describes a {kind} space, which this wrapper cannot build")


def _shaped(bound: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A bound of a ``shape`` space: one number for all, or every entry (sent flat)."""
    return bound.reshape(shape) if bound.size == math.prod(shape) else np.broadcast_to(bound, shape)


def _limits(value: Any, missing: float) -> np.ndarray:
    """Bounds as a float array; ``None`` (an infinite bound on the wire) becomes ``missing``."""
    if value is None:
        return np.asarray(missing)
    if isinstance(value, list):
        return np.asarray([missing if v is None else v for v in value], dtype=float)
    return np.asarray(value, dtype=float)


def from_wire(space: spaces.Space[Any], value: Any) -> Any:
    """A JSON value (as our Gymnasium adapter sends it) as an element of ``space``."""
    if isinstance(space, spaces.Box):
        if isinstance(value, dict) and "encoding" in value:  # an image sent as a frame
            return writable(decode_frame(value)).reshape(space.shape)
        return np.asarray(value, dtype=space.dtype).reshape(space.shape)
    if isinstance(space, spaces.Discrete):
        return np.int64(value)
    if isinstance(space, spaces.MultiDiscrete | spaces.MultiBinary):
        return np.asarray(value, dtype=space.dtype).reshape(space.shape)
    if isinstance(space, spaces.Tuple):
        return tuple(from_wire(s, v) for s, v in zip(space.spaces, value, strict=True))
    if isinstance(space, spaces.Dict):
        return {k: from_wire(s, value[k]) for k, s in space.spaces.items()}
    raise NoSpace(f"cannot read a value of {space}")


def to_wire(value: Any) -> Any:
    """An element of a space in JSON form (numpy arrays and scalars become lists and numbers)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: to_wire(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [to_wire(v) for v in value]
    return value


def writable(array: np.ndarray) -> np.ndarray:
    """``array``, copied when it is a read-only view of wire bytes (users may write to it)."""
    return array if array.flags.writeable else array.copy()


# -- observations --------------------------------------------------------------------------


class ObservationCodec:
    """An observation space and the conversion of an observation's fields into it."""

    space: spaces.Space[Any]

    def decode(self, fields: Mapping[str, Any]) -> Any:
        raise NotImplementedError


class FrameField(ObservationCodec):
    """A frame field as a ``uint8`` array (H×W×C for images)."""

    def __init__(self, name: str, probe: Mapping[str, Any]) -> None:
        self.name, self._shape_key = name, f"{name}_shape"  # a "list" frame's shape field
        if probe.get(name) is None:
            raise NoSpace(
                f"the observation's {name!r} is empty after reset(); ask the server for it "
                f"with a reset option (the Gymnasium env: render=True) or pick other fields"
            )
        self.space = spaces.Box(0, 255, self.decode(probe).shape, np.uint8)

    def decode(self, fields: Mapping[str, Any]) -> np.ndarray:
        value = fields[self.name]
        shape = fields.get(self._shape_key) if isinstance(value, list) else None
        array = decode_frame(value, shape)
        if array.ndim == 2:  # a grayscale screen: one channel
            array = array[:, :, None]
        return writable(array)


class DescribedField(ObservationCodec):
    """A field whose space the server describes (``<field>_space`` in the state)."""

    def __init__(self, name: str, space: spaces.Space[Any]) -> None:
        self.name, self.space = name, space

    def decode(self, fields: Mapping[str, Any]) -> Any:
        return from_wire(self.space, fields[self.name])


class NumberFields(ObservationCodec):
    """Numeric fields as one ``float32`` vector (a single list field keeps its shape). A list
    keeps the length it has after ``reset()``: choose lists whose length does not change."""

    def __init__(self, chosen: Sequence[Field], probe: Mapping[str, Any]) -> None:
        self.names = [f.name for f in chosen]
        shapes = [np.shape(probe.get(f.name, 0)) for f in chosen]
        self._scalars = all(s == () for s in shapes)
        lows, highs = [], []
        for field, shape in zip(chosen, shapes, strict=True):
            low, high = bounds(_leaf(field.schema))
            lows.append(np.full(shape, low, np.float32).ravel())
            highs.append(np.full(shape, high, np.float32).ravel())
        self._shape = shapes[0] if len(shapes) == 1 and shapes[0] != () else None
        shape = self._shape or (sum(low.size for low in lows),)
        low_all, high_all = np.concatenate(lows), np.concatenate(highs)
        self.space = spaces.Box(low_all.reshape(shape), high_all.reshape(shape), shape, np.float32)

    def decode(self, fields: Mapping[str, Any]) -> np.ndarray:
        if self._scalars:
            return np.array([fields[n] for n in self.names], dtype=np.float32)
        if self._shape is not None:
            return np.array(fields[self.names[0]], dtype=np.float32).reshape(self._shape)
        parts = [np.asarray(fields[n], dtype=np.float32).ravel() for n in self.names]
        return np.concatenate(parts)


class DictFields(ObservationCodec):
    """Several fields as a ``Dict`` space, one entry per field."""

    def __init__(self, codecs: Mapping[str, ObservationCodec]) -> None:
        self._codecs = dict(codecs)
        self.space = spaces.Dict({name: c.space for name, c in self._codecs.items()})

    def decode(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        return {name: codec.decode(fields) for name, codec in self._codecs.items()}


def default_observation(
    fields: Mapping[str, Field], probe: Mapping[str, Any], described: Mapping[str, Any]
) -> list[str]:
    """The fields that make the observation when the user does not choose: the described
    ones, else the frames present after reset, else the fixed-size numeric fields."""
    candidates = [n for n in fields if n not in BOOKKEEPING]
    for chosen in (
        [n for n in candidates if n in described],
        [n for n in candidates if fields[n].frame and probe.get(n) is not None],
        [
            n
            for n in candidates
            if numeric(fields[n]) and fixed_size(fields[n]) and not fields[n].nullable
        ],
    ):
        if chosen:
            return chosen
    raise NoSpace(
        f"the observation has no numeric field or frame ({', '.join(candidates)}); "
        f"pass observation=<field names> with numeric fields, or wrap it yourself"
    )


def observation_codec(
    names: Sequence[str],
    fields: Mapping[str, Field],
    probe: Mapping[str, Any],
    described: Mapping[str, Any],
) -> ObservationCodec:
    """The codec of the observation made of ``names``: one space for one field, a flat
    ``Box`` for several numeric fields, a ``Dict`` when frames or described spaces join in."""
    unknown = [n for n in names if n not in fields]
    if unknown:
        known = ", ".join(n for n in fields if n not in BOOKKEEPING)
        raise NoSpace(f"the observation has no field {unknown}; it has {known}")
    chosen = [fields[n] for n in names]
    if all(f.name not in described and not f.frame for f in chosen):
        for field in chosen:
            if not numeric(field):
                raise NoSpace(f"observation field {field.name!r} is not numeric: choose others")
        return NumberFields(chosen, probe)
    codecs = {f.name: _single(f, probe, described) for f in chosen}
    return next(iter(codecs.values())) if len(codecs) == 1 else DictFields(codecs)


def _single(field: Field, probe: Mapping[str, Any], described: Mapping[str, Any]):
    if field.name in described:
        return DescribedField(field.name, space_from_description(described[field.name]))
    if field.frame:
        return FrameField(field.name, probe)
    if numeric(field):
        return NumberFields([field], probe)
    raise NoSpace(f"observation field {field.name!r} is not numeric: choose others")


# -- actions -------------------------------------------------------------------------------


class ActionCodec:
    """An action space and the conversion of its elements into an action's fields."""

    space: spaces.Space[Any]

    def encode(self, action: Any) -> Any:
        """The action to send: the fields of an action (or an action model, see typed)."""
        raise NotImplementedError

    def typed(self, model: type[Any]) -> None:
        """Send instances of ``model`` (the client's action class) where they can be built
        once, so the client does not validate the same dict on every step."""


class Choices(ActionCodec):
    """``Discrete(len(values))``: action ``i`` sends ``{field: values[i]}``."""

    def __init__(self, name: str, values: Sequence[Any]) -> None:
        if not values:
            raise NoSpace(f"action field {name!r} has no values to choose from")
        self.name, self.values = name, list(values)
        self._payloads = [{name: v} for v in self.values]
        self.space = spaces.Discrete(len(self.values))

    def encode(self, action: Any) -> Any:
        index = int(action)
        if not 0 <= index < len(self._payloads):
            raise ValueError(f"action {action!r} is outside Discrete({len(self._payloads)})")
        return self._payloads[index]

    def typed(self, model: type[Any]) -> None:
        self._payloads = [model.model_validate(p) for p in self._payloads]


class Numbers(ActionCodec):
    """A ``float32`` ``Box``: entry ``i`` is field ``i`` (or one list field's values)."""

    def __init__(self, names: Sequence[str], low: np.ndarray, high: np.ndarray, listed: bool):
        self.names, self._listed = list(names), listed
        self.space: spaces.Box = spaces.Box(
            low.astype(np.float32), high.astype(np.float32), dtype=np.float32
        )

    def encode(self, action: Any) -> dict[str, Any]:
        values = np.asarray(action, dtype=float).ravel().tolist()
        if self._listed:
            return {self.names[0]: values}
        return dict(zip(self.names, values, strict=True))


class Described(ActionCodec):
    """A field whose space the server describes: elements are sent in JSON form."""

    def __init__(self, name: str, space: spaces.Space[Any]) -> None:
        self.name, self.space = name, space

    def encode(self, action: Any) -> dict[str, Any]:
        return {self.name: to_wire(action)}


class DictAction(ActionCodec):
    """Several action fields as a ``Dict`` space."""

    def __init__(self, codecs: Mapping[str, ActionCodec]) -> None:
        self._codecs = dict(codecs)
        self.space = spaces.Dict({name: c.space for name, c in self._codecs.items()})

    def encode(self, action: Any) -> dict[str, Any]:
        payload: dict[str, Any] = {}
        for name, codec in self._codecs.items():
            payload.update(codec.encode(action[name]))
        return payload


def action_codec(
    model_schema: Mapping[str, Any],
    probe: Mapping[str, Any],
    described: Mapping[str, Any],
    names: Sequence[str] | None = None,
) -> ActionCodec:
    """The codec of the action fields ``names`` (default: the required ones)."""
    fields = fields_of(model_schema)
    if names is None:
        names = [n for n in model_schema.get("required", []) if n not in BOOKKEEPING]
    if not names:
        raise NoSpace("the action has no required field; pass action_fields=[...]")
    codecs = {n: _action_field(fields[n], probe, described) for n in names}
    if len(codecs) == 1:
        return next(iter(codecs.values()))
    scalars = [c for c in codecs.values() if isinstance(c, Numbers) and c.space.shape == (1,)]
    if len(scalars) == len(codecs):  # bounded number fields: one Box, entry i is field i
        low = np.concatenate([c.space.low for c in scalars])
        high = np.concatenate([c.space.high for c in scalars])
        return Numbers(list(codecs), low, high, listed=False)
    return DictAction(codecs)


def _action_field(field: Field, probe: Mapping[str, Any], described: Mapping[str, Any]):
    schema, name = field.schema, field.name
    if name in described:
        return Described(name, space_from_description(described[name]))
    if isinstance(schema.get("enum"), list):
        return Choices(name, schema["enum"])
    if field.type == "boolean":
        return Choices(name, [False, True])
    if field.type == "integer":
        low, high = bounds(schema)
        if math.isfinite(low) and math.isfinite(high):
            return Choices(name, range(int(low), int(high) + 1))
        legal = probe.get("legal_actions")
        if isinstance(legal, list) and legal and all(isinstance(v, int) for v in legal):
            return Choices(name, legal)
    if numeric(field):
        return _number_action(field)
    raise NoSpace(
        f"no Gymnasium space for action field {name!r} ({schema.get('type', 'any')}): it needs "
        f"an enum, bounds (Field(ge=..., le=...)) or legal_actions in the observation"
    )


def _number_action(field: Field) -> Numbers:
    schema = field.schema
    if schema.get("type") != "array":
        low, high = bounds(schema)
        if math.isfinite(low) and math.isfinite(high):
            return Numbers([field.name], np.array([low]), np.array([high]), listed=False)
    else:
        items = schema.get("prefixItems") or []
        limits = [bounds(item) for item in items]
        if limits and all(math.isfinite(lo) and math.isfinite(hi) for lo, hi in limits):
            lows, highs = (np.array(side) for side in zip(*limits, strict=True))
            return Numbers([field.name], lows, highs, listed=True)
    raise NoSpace(
        f"action field {field.name!r} has no finite bounds in the schema; declare them "
        f"(Field(ge=..., le=...)) or have the state describe {field.name}{SPACE_SUFFIX}"
    )
