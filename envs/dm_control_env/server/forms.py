"""The action model a server advertises: its schema gives the served task's bounds."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field, WithJsonSchema, create_model

from dm_control_env.models import DMControlAction
from dm_control_env.server.environment import load_task


def action_model(domain_name: str, task_name: str) -> type[DMControlAction]:
    """``DMControlAction`` whose schema has one bounded number per action dimension.

    Only the schema changes (clients and the playground's action form read the bounds; the
    stage's sliders come from ``action_sliders()``, per session); validation stays generic
    because a session may switch tasks at reset.
    """
    env = load_task(domain_name, task_name)
    try:
        spec = env.action_spec()
        low = np.broadcast_to(spec.minimum, spec.shape).ravel().astype(float)
        high = np.broadcast_to(spec.maximum, spec.shape).ravel().astype(float)
    finally:
        env.close()
    items = [
        {"type": "number", "minimum": lo, "maximum": hi} for lo, hi in zip(low, high, strict=True)
    ]
    schema = {
        "type": "array",
        "prefixItems": items,
        "items": False,
        "minItems": len(items),
        "maxItems": len(items),
    }
    return create_model(
        "DMControlAction",
        __base__=DMControlAction,
        __module__=DMControlAction.__module__,
        values=(
            Annotated[list[float], WithJsonSchema(schema)],
            Field(
                description=f"one value per actuator of the task ({domain_name}/{task_name}: "
                f"{len(items)}); the sliders follow the task chosen at reset"
            ),
        ),
    )
