"""Wire types of the Gymnasium adapter, shared by its client and its server.

One set of models serves every Gymnasium environment, so the action and the observation are
carried in their JSON form (``int`` for ``Discrete``, lists for ``Box`` and ``Multi*``, lists
and objects for ``Tuple`` and ``Dict``). Importing this module does not need ``gymnasium``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field

from openenv.core import Action, Observation, State
from openenv.core.frames import FrameData, decode_frame


class GymnasiumAction(Action):
    """An element of the environment's action space, in JSON form."""

    action: Any = Field(
        description="Discrete: an int; Box: a number or a list of numbers; "
        "MultiDiscrete/MultiBinary: a list of ints; Tuple: a list; Dict: an object"
    )


class GymnasiumObservation(Observation):
    """The environment's observation and info in JSON form, plus what it draws."""

    env_id: str = Field(default="", description="The Gymnasium id, e.g. CartPole-v1")
    observation: Any = Field(default=None, description="The observation in JSON form")
    info: dict[str, Any] = Field(default_factory=dict, description="The info dict in JSON form")
    frame: FrameData | None = Field(
        default=None,
        description="The rgb_array render (reset option render=True), "
        "encoded as in openenv.core.frames",
    )
    frame_shape: list[int] | None = Field(default=None, description="e.g. [400, 600, 3]")
    text: str | None = Field(default=None, description="The ansi render, without colour codes")

    def frame_array(self) -> np.ndarray | None:
        """The rendered frame as an H×W×3 ``uint8`` array, or ``None`` without a frame."""
        return None if self.frame is None else decode_frame(self.frame, self.frame_shape)


class GymnasiumState(State):
    """The running environment and a description of its spaces."""

    env_id: str = ""
    render_mode: str | None = None
    max_episode_steps: int | None = None
    action_space: dict[str, Any] = Field(default_factory=dict)
    observation_space: dict[str, Any] = Field(default_factory=dict)
    render: bool = False
    frame_encoding: str = "zlib"
