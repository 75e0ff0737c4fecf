"""Typed client of the Helium browser server."""

from __future__ import annotations

from helium_browser_env.models import HeliumAction, HeliumObservation, HeliumState
from openenv.client import EnvClient


class HeliumBrowserEnv(EnvClient[HeliumAction, HeliumObservation, HeliumState]):
    """``async with HeliumBrowserEnv(base_url=...) as env`` or ``HeliumBrowserEnv(...).sync()``.

    ``result.observation.screenshot_array()`` gives the page as a numpy array;
    ``HeliumAction.parse('click("Sign in")')`` builds an action from a model's text.
    """
