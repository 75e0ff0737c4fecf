"""Typed client of the Atari server."""

from __future__ import annotations

from atari_env.models import AtariAction, AtariObservation, AtariState
from openenv.client import EnvClient


class AtariEnv(EnvClient[AtariAction, AtariObservation, AtariState]):
    """``async with AtariEnv(base_url=...) as env`` or ``AtariEnv(...).sync()``.

    ``result.observation.screen_array()`` gives the screen as a numpy array.
    """
