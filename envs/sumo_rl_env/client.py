"""Typed client of the SUMO traffic-signal server."""

from __future__ import annotations

from openenv.client import EnvClient
from sumo_rl_env.models import SumoAction, SumoObservation, SumoState


class SumoRLEnv(EnvClient[SumoAction, SumoObservation, SumoState]):
    """``async with SumoRLEnv(base_url=...) as env`` or ``SumoRLEnv(...).sync()``."""
