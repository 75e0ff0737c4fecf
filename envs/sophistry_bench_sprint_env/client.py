"""Typed client of the Sophistry Bench sprint server."""

from __future__ import annotations

from openenv.client import EnvClient
from sophistry_bench_sprint_env.models import (
    SophistryBenchSprintAction,
    SophistryBenchSprintObservation,
    SophistryBenchSprintState,
)


class SophistryBenchSprintEnv(
    EnvClient[
        SophistryBenchSprintAction, SophistryBenchSprintObservation, SophistryBenchSprintState
    ]
):
    """``async with SophistryBenchSprintEnv(base_url=...) as env``, or ``.sync()`` for a
    blocking client."""
