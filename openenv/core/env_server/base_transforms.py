"""``openenv.core.env_server.base_transforms``: ``openenv`` 0.10's two stock transforms, on our
:class:`~openenv.core.transforms.Transform`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from openenv.core.transforms import Compose, Transform

__all__ = ["CompositeTransform", "NullTransform"]


class CompositeTransform(Compose):
    """Apply a list of transforms left to right (``Compose`` taking a list)."""

    def __init__(self, transforms: Iterable[Transform]) -> None:
        super().__init__(*transforms)


class NullTransform(Transform):
    """Leave the observation as it is."""

    def __call__(self, observation: Any) -> Any:
        return observation
