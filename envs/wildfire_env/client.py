"""Typed client of the wildfire server."""

from __future__ import annotations

from openenv.client import EnvClient
from wildfire_env.models import WildfireAction, WildfireObservation, WildfireState


class WildfireEnv(EnvClient[WildfireAction, WildfireObservation, WildfireState]):
    """``async with WildfireEnv(base_url=...) as env`` or ``WildfireEnv(...).sync()``."""
