"""Typed client of the BrowserGym server."""

from __future__ import annotations

from browsergym_env.models import BrowserGymAction, BrowserGymObservation, BrowserGymState
from openenv.client import EnvClient


class BrowserGymEnv(EnvClient[BrowserGymAction, BrowserGymObservation, BrowserGymState]):
    """``async with BrowserGymEnv(base_url=...) as env`` or ``BrowserGymEnv(...).sync()``.

    ``result.observation.screenshot_array()`` gives the page as a numpy array.
    """
