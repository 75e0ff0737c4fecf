"""Wire types of the Atari environment, shared by its client and its server.

Importing this module does not need ``ale-py``: clients install only the base package.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from openenv.core import Action, Observation, State
from openenv.core.frames import FrameData, decode_frame


class AtariAction(Action):
    """Press one of the game's buttons for ``frameskip`` frames.

    ``action_id`` indexes the current action set (``observation.legal_actions``; its meanings
    are in ``observation.action_meanings``). ``game_name``, ``obs_type`` and
    ``full_action_space`` exist for clients written for the reference server, which send them
    on every step: when given they must match the running episode (choose them at reset).
    """

    action_id: int = Field(ge=0, description="Index into the action set (see legal_actions)")
    game_name: str | None = Field(default=None, description="Must match the running game")
    obs_type: str | None = Field(default=None, description="Must match the running obs_type")
    full_action_space: bool | None = Field(
        default=None, description="Must match the running action space"
    )


class AtariObservation(Observation):
    """The screen (or RAM) after the action, plus the game's counters."""

    screen: FrameData = Field(
        default_factory=list,
        description="The screen (rgb/grayscale) or RAM, encoded as in openenv.core.frames",
    )
    screen_shape: list[int] = Field(default_factory=list, description="e.g. [210, 160, 3]")
    legal_actions: list[int] = Field(default_factory=list, description="Valid action_id values")
    action_meanings: list[str] = Field(
        default_factory=list, description="Button name of each action_id (NOOP, FIRE, UP, ...)"
    )
    lives: int = Field(default=0, description="Lives left")
    episode_frame_number: int = Field(default=0, description="Frames since the episode started")
    frame_number: int = Field(default=0, description="Frames since the emulator started")

    def screen_array(self) -> np.ndarray:
        """The screen as a ``uint8`` array of shape ``screen_shape``, whatever the encoding."""
        return decode_frame(self.screen, self.screen_shape)


class AtariState(State):
    """The configuration of the running episode."""

    game_name: str = "pong"
    obs_type: str = "rgb"
    full_action_space: bool = False
    mode: int | None = None
    difficulty: int | None = None
    repeat_action_probability: float = 0.0
    frameskip: int = 4
    max_episode_steps: int | None = None
    frame_encoding: str = "rows"
