"""Agent World Model: synthetic tool-use worlds (a database, its tools, tasks) with verifiers.
Client-side exports."""

from agent_world_model_env.client import AWMEnv
from agent_world_model_env.models import (
    AWMObservation,
    AWMState,
    CallToolAction,
    ListToolsAction,
    Tool,
)

__all__ = ["AWMEnv", "AWMObservation", "AWMState", "CallToolAction", "ListToolsAction", "Tool"]
