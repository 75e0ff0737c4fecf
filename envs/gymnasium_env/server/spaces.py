"""Gymnasium spaces ↔ JSON: actions in, observations and info out, schemas for the form."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from gymnasium import spaces

from openenv.core import ActionSliders, InvalidAction, Slider
from openenv.core.frames import encode_frame

# uint8 arrays at least this large with two or more dimensions (images) travel as frames.
IMAGE_MIN_SIZE = 1024
# Discrete-like spaces with at most this many actions get one button per action.
MAX_BUTTONS = 32
# Bounded Box spaces with at most this many numbers get one slider per number.
MAX_SLIDERS = 64


def to_json(value: Any, encoding: str = "zlib") -> Any:
    """A JSON-friendly copy of an observation or info value (numpy arrays become lists)."""
    if isinstance(value, np.ndarray):
        if _is_image(value) and encoding != "list":
            return encode_frame(value, encoding).model_dump()
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): to_json(v, encoding) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v, encoding) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def _is_image(value: np.ndarray) -> bool:
    return value.dtype == np.uint8 and value.ndim >= 2 and value.size >= IMAGE_MIN_SIZE


def from_json(space: spaces.Space, value: Any) -> Any:
    """Turn a JSON action into an element of ``space``; refuse what the space does not contain."""
    try:
        action = _convert(space, value)
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidAction(f"action {value!r} does not fit {space}: {exc}") from None
    if not space.contains(action):
        raise InvalidAction(f"action {value!r} is outside the action space {space}")
    return action


def _convert(space: spaces.Space, value: Any) -> Any:
    if isinstance(space, spaces.Discrete):
        return np.int64(_integer(value))
    if isinstance(space, spaces.Box):
        array = np.asarray(value, dtype=space.dtype)
        return array.reshape(space.shape)
    if isinstance(space, spaces.MultiDiscrete | spaces.MultiBinary):
        array = np.asarray([_integer(v) for v in np.ravel(np.asarray(value, dtype=object))])
        return array.astype(space.dtype).reshape(space.shape)
    if isinstance(space, spaces.Tuple):
        if len(value) != len(space.spaces):
            raise ValueError(f"expected {len(space.spaces)} items")
        return tuple(_convert(s, v) for s, v in zip(space.spaces, value, strict=True))
    if isinstance(space, spaces.Dict):
        return {k: _convert(s, value[k]) for k, s in space.spaces.items()}
    return value


def _integer(value: Any) -> int:
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError(f"{value!r} is not an integer")
    if isinstance(value, str | bytes):
        raise TypeError(f"{value!r} is not an integer")
    return int(value)


def describe(space: spaces.Space) -> dict[str, Any]:
    """A JSON description of a space: type, shape, bounds or sizes."""
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.Box):
        return {
            "type": "Box",
            "shape": list(space.shape),
            "dtype": str(space.dtype),
            "low": _bounds(space.low),
            "high": _bounds(space.high),
        }
    if isinstance(space, spaces.MultiDiscrete):
        return {"type": "MultiDiscrete", "nvec": space.nvec.tolist()}
    if isinstance(space, spaces.MultiBinary):
        return {"type": "MultiBinary", "n": to_json(space.n)}
    if isinstance(space, spaces.Tuple):
        return {"type": "Tuple", "spaces": [describe(s) for s in space.spaces]}
    if isinstance(space, spaces.Dict):
        return {"type": "Dict", "spaces": {k: describe(s) for k, s in space.spaces.items()}}
    return {"type": type(space).__name__, "repr": repr(space)}


def _bounds(array: np.ndarray) -> Any:
    flat = [float(v) if math.isfinite(v) else None for v in np.asarray(array, dtype=float).ravel()]
    return flat if np.ndim(array) else flat[0]


def json_schema(space: spaces.Space) -> dict[str, Any]:
    """The JSON schema of an action of ``space``, with the bounds of its numbers."""
    if isinstance(space, spaces.Discrete):
        low = int(space.start)
        return {"type": "integer", "minimum": low, "maximum": low + int(space.n) - 1}
    if isinstance(space, spaces.Box):
        items = [
            _number(lo, hi) for lo, hi in zip(space.low.ravel(), space.high.ravel(), strict=True)
        ]
        if len(items) == 1 and space.shape in ((), (1,)):
            return items[0]
        return _array(items)
    if isinstance(space, spaces.MultiBinary):
        size = int(np.prod(space.shape))
        return _array([{"type": "integer", "minimum": 0, "maximum": 1}] * size)
    if isinstance(space, spaces.MultiDiscrete):
        items = [
            {"type": "integer", "minimum": 0, "maximum": int(n) - 1} for n in space.nvec.ravel()
        ]
        return _array(items)
    if isinstance(space, spaces.Tuple):
        return _array([json_schema(s) for s in space.spaces])
    if isinstance(space, spaces.Dict):
        props = {k: json_schema(s) for k, s in space.spaces.items()}
        return {"type": "object", "properties": props, "required": list(props)}
    return {}


def _number(low: float, high: float) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "number"}
    if math.isfinite(low):
        schema["minimum"] = float(low)
    if math.isfinite(high):
        schema["maximum"] = float(high)
    return schema


def _array(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "array",
        "prefixItems": items,
        "items": False,
        "minItems": len(items),
        "maxItems": len(items),
    }


def sliders(space: spaces.Space, labels: list[str]) -> ActionSliders | None:
    """One slider per number of a Box action space bounded on both sides, else ``None``."""
    if not isinstance(space, spaces.Box) or not 0 < space.low.size <= MAX_SLIDERS:
        return None
    low, high = space.low.ravel().astype(float), space.high.ravel().astype(float)
    if not (np.isfinite(low).all() and np.isfinite(high).all() and (low < high).all()):
        return None
    step = 1.0 if np.issubdtype(space.dtype, np.integer) else None
    return ActionSliders(
        "action",
        tuple(Slider(n, lo, hi, step=step) for n, lo, hi in zip(labels, low, high, strict=True)),
        scalar=space.shape == (),
    )


def enumerate_actions(space: spaces.Space) -> list[Any] | None:
    """Every JSON action of a small discrete space (for buttons), or ``None`` if not small."""
    if isinstance(space, spaces.Discrete):
        start = int(space.start)
        return list(range(start, start + int(space.n))) if space.n <= MAX_BUTTONS else None
    if isinstance(space, spaces.MultiBinary | spaces.MultiDiscrete):
        sizes = (
            [2] * int(np.prod(space.shape))
            if isinstance(space, spaces.MultiBinary)
            else [int(n) for n in space.nvec.ravel()]
        )
        if math.prod(sizes) > MAX_BUTTONS:
            return None
        return [list(combo) for combo in itertools.product(*(range(n) for n in sizes))]
    return None
