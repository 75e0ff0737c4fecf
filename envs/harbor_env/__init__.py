"""Harbor: coding agents on Harbor tasks in sandboxes, every model call captured. Client-side
exports, and ``HarborSessionFactory`` (Harbor rollouts as trainer sessions, :mod:`.sessions`)."""

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
from harbor_env.sessions import HarborSession, HarborSessionFactory

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "HarborConversation",
    "HarborEnv",
    "HarborRolloutResult",
    "HarborSession",
    "HarborSessionFactory",
    "HarborTaskRef",
    "HarborTurn",
    "ListToolsAction",
    "ListToolsObservation",
    "Tool",
    "TrainingTrace",
]
