"""τ²-bench: customer-service conversations scored from the final database. Client exports."""

from tau2_env.client import Tau2Env
from tau2_env.models import (
    CallToolAction,
    ListToolsAction,
    Tau2Action,
    Tau2Observation,
    Tau2State,
    Tool,
)

__all__ = [
    "CallToolAction",
    "ListToolsAction",
    "Tau2Action",
    "Tau2Env",
    "Tau2Observation",
    "Tau2State",
    "Tool",
]
