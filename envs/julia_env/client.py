"""Typed client of the Julia server."""

from __future__ import annotations

from julia_env.models import JuliaAction, JuliaObservation, JuliaState
from openenv.client import EnvClient


class JuliaEnv(EnvClient[JuliaAction, JuliaObservation, JuliaState]):
    """``async with JuliaEnv(base_url=...) as env`` or ``JuliaEnv(...).sync()``."""
