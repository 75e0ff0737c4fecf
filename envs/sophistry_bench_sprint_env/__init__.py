"""Sophistry Bench sprint: defend an assigned answer about a QuALITY passage, in one reply."""

from sophistry_bench_sprint_env.client import SophistryBenchSprintEnv
from sophistry_bench_sprint_env.models import (
    SophistryBenchSprintAction,
    SophistryBenchSprintObservation,
    SophistryBenchSprintState,
)

__all__ = [
    "SophistryBenchSprintAction",
    "SophistryBenchSprintEnv",
    "SophistryBenchSprintObservation",
    "SophistryBenchSprintState",
]
