"""Julia: write Julia functions, run against a task's tests in a sandbox. Client exports.

The server needs a Julia binary (``julia`` on PATH, or ``JULIA_BIN``); without one it still
serves, and every observation says that Julia is not installed.
"""

from julia_env.client import JuliaEnv
from julia_env.models import JuliaAction, JuliaObservation, JuliaState

__all__ = ["JuliaAction", "JuliaEnv", "JuliaObservation", "JuliaState"]
