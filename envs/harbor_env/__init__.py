"""Harbor: coding agents on Harbor tasks in sandboxes, every model call captured. Client-side
exports."""

from harbor_env.client import HarborEnv
from harbor_env.models import (
    CallToolAction,
    CallToolObservation,
    HarborConversation,
    HarborRolloutResult,
    HarborTaskRef,
    HarborTurn,
    ListToolsAction,
    ListToolsObservation,
    Tool,
    TrainingTrace,
)

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "HarborConversation",
    "HarborEnv",
    "HarborRolloutResult",
    "HarborTaskRef",
    "HarborTurn",
    "ListToolsAction",
    "ListToolsObservation",
    "Tool",
    "TrainingTrace",
]
