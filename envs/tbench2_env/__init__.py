"""tbench2_env: Terminal-Bench tasks in a terminal, scored by each task's tests. Client-side
exports."""

from tbench2_env.client import Tbench2Env
from tbench2_env.models import Tbench2Action, Tbench2Observation, Tbench2State

__all__ = ["Tbench2Action", "Tbench2Env", "Tbench2Observation", "Tbench2State"]
