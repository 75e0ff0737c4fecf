"""Typed client of the DIPG safety server."""

from __future__ import annotations

from dipg_safety_env.models import DIPGAction, DIPGObservation, DIPGState
from openenv.client import EnvClient


class DIPGSafetyEnv(EnvClient[DIPGAction, DIPGObservation, DIPGState]):
    """``async with DIPGSafetyEnv(base_url=...) as env`` or ``DIPGSafetyEnv(...).sync()``."""
