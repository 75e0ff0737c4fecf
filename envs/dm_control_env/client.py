"""Typed client of the dm_control server."""

from __future__ import annotations

from dm_control_env.models import DMControlAction, DMControlObservation, DMControlState
from openenv.client import EnvClient


class DMControlEnv(EnvClient[DMControlAction, DMControlObservation, DMControlState]):
    """``async with DMControlEnv(base_url=...) as env`` or ``DMControlEnv(...).sync()``.

    Choose the task at reset: ``env.reset(domain_name="walker", task_name="walk")``.
    """
