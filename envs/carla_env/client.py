"""Typed client of the CARLA env server."""

from __future__ import annotations

from carla_env.models import CarlaAction, CarlaObservation, CarlaState
from openenv.client import EnvClient


class CarlaEnv(EnvClient[CarlaAction, CarlaObservation, CarlaState]):
    """``async with CarlaEnv(base_url=...) as env`` or ``CarlaEnv(...).sync()``."""
