"""Typed client of the KernRL server."""

from __future__ import annotations

from kernrl_env.models import KernrlAction, KernrlObservation, KernrlState
from openenv.client import EnvClient


class KernrlEnv(EnvClient[KernrlAction, KernrlObservation, KernrlState]):
    """``async with KernrlEnv(base_url=...) as env``, or ``.sync()`` for a blocking one."""
