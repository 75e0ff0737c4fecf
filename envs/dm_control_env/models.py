"""Wire types of the dm_control environment, shared by its client and its server.

Importing this module does not need ``dm_control`` or ``mujoco``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field

from openenv.core import Action, Observation, State
from openenv.core.frames import FrameData, decode_frame


class DMControlAction(Action):
    """Continuous controls, one value per dimension of the task's action spec."""

    values: list[float] = Field(description="Action values within the action spec's bounds")


class DMControlObservation(Observation):
    """The task's named observation arrays (flattened) and, on request, a camera frame."""

    observations: dict[str, list[float]] = Field(
        default_factory=dict, description="Named observation arrays, flattened"
    )
    pixels: FrameData | None = Field(
        default=None,
        description="Camera frame (reset option render=True), encoded as in openenv.core.frames",
    )
    pixels_shape: list[int] | None = Field(default=None, description="e.g. [240, 320, 3]")

    def pixels_array(self) -> np.ndarray | None:
        """The camera frame as an H×W×3 ``uint8`` array, or ``None`` without one."""
        return None if self.pixels is None else decode_frame(self.pixels, self.pixels_shape)


class DMControlState(State):
    """The running task, its specs and timesteps."""

    domain_name: str = "cartpole"
    task_name: str = "balance"
    action_spec: dict[str, Any] = Field(default_factory=dict)
    observation_spec: dict[str, Any] = Field(default_factory=dict)
    physics_timestep: float = 0.0
    control_timestep: float = 0.0
    render: bool = False
    frame_encoding: str = "zlib"
