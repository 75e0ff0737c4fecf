"""Typed client of the Python CodeAct server."""

from __future__ import annotations

from openenv.client import EnvClient
from python_codeact_env.models import (
    PythonCodeactAction,
    PythonCodeactObservation,
    PythonCodeactState,
)


class PythonCodeactEnv(
    EnvClient[PythonCodeactAction, PythonCodeactObservation, PythonCodeactState]
):
    """``async with PythonCodeactEnv(base_url=...) as env``, or ``.sync()`` for a blocking one."""
