"""Button labels and keyboard keys for the discrete actions of well-known environments, and
slider names for their continuous (Box) actions.

Keyed by the class name of the unwrapped environment, so variants (``FrozenLake8x8-v1``,
``CliffWalkingSlippery-v1``) share labels. Unknown environments get ``action k`` buttons, or
the names of an ``actions`` enum when the environment has one (MiniGrid).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

Label = tuple[str, str | None]  # (button text, KeyboardEvent.key)

KNOWN: dict[str, list[Label]] = {
    "CartPoleEnv": [("← Push left", "ArrowLeft"), ("Push right →", "ArrowRight")],
    "MountainCarEnv": [
        ("← Accelerate left", "ArrowLeft"),
        ("Coast", "ArrowDown"),
        ("Accelerate right →", "ArrowRight"),
    ],
    "AcrobotEnv": [
        ("↺ Torque -1", "ArrowLeft"),
        ("No torque", "ArrowDown"),
        ("↻ Torque +1", "ArrowRight"),
    ],
    "FrozenLakeEnv": [
        ("← Left", "ArrowLeft"),
        ("↓ Down", "ArrowDown"),
        ("→ Right", "ArrowRight"),
        ("↑ Up", "ArrowUp"),
    ],
    "TaxiEnv": [
        ("↓ South", "ArrowDown"),
        ("↑ North", "ArrowUp"),
        ("→ East", "ArrowRight"),
        ("← West", "ArrowLeft"),
        ("Pick up", "p"),
        ("Drop off", "d"),
    ],
    "CliffWalkingEnv": [
        ("↑ Up", "ArrowUp"),
        ("→ Right", "ArrowRight"),
        ("↓ Down", "ArrowDown"),
        ("← Left", "ArrowLeft"),
    ],
    "BlackjackEnv": [("Stick", "s"), ("Hit", "h")],
}

# What each number of a Box action drives, from the environments' documentation.
BOX_NAMES: dict[str, list[str]] = {
    "PendulumEnv": ["torque"],
    "Continuous_MountainCarEnv": ["force"],
    "LunarLander": ["main engine", "side engines"],
    "BipedalWalker": ["hip 1", "knee 1", "hip 2", "knee 2"],
    "CarRacing": ["steering", "gas", "brake"],
    "InvertedPendulumEnv": ["cart force"],
    "InvertedDoublePendulumEnv": ["cart force"],
}

# MiniGrid's Actions enum: left, right, forward, pickup, drop, toggle, done.
ENUM_KEYS = {
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "forward": "ArrowUp",
    "pickup": "p",
    "drop": "d",
    "toggle": "t",
    "done": "Enter",
}


def discrete_labels(unwrapped: Any, actions: list[Any]) -> list[Label]:
    """One (label, key) per action of ``actions`` (the JSON actions, in order)."""
    known = KNOWN.get(type(unwrapped).__name__)
    if known is not None and len(known) == len(actions):
        return known
    names = _enum_names(unwrapped, len(actions))
    if names is not None:
        return [(name.replace("_", " ").capitalize(), ENUM_KEYS.get(name)) for name in names]
    keys = [str(i) for i in range(1, 10)] + ["0"]
    return [
        (f"action {_text(a)}", keys[i] if i < len(keys) else None) for i, a in enumerate(actions)
    ]


def _enum_names(unwrapped: Any, count: int) -> list[str] | None:
    enum = getattr(unwrapped, "actions", None)
    try:
        names = [member.name for member in enum]
    except (TypeError, AttributeError):
        return None
    return names if len(names) == count else None


def _text(action: Any) -> str:
    return ",".join(map(str, action)) if isinstance(action, list) else str(action)


def box_labels(unwrapped: Any, shape: tuple[int, ...]) -> list[str]:
    """One name per number of a Box action of ``shape`` (row-major order)."""
    names = BOX_NAMES.get(type(unwrapped).__name__)
    size = math.prod(shape)
    if names is not None and len(names) == size:
        return names
    if size == 1:
        return ["action"]
    return [
        f"action[{', '.join(map(str, index))}]" for index in itertools.product(*map(range, shape))
    ]
