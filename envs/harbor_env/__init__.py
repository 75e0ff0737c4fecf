"""Harbor: coding agents on Harbor tasks in sandboxes, every model call captured. Client-side
exports, ``HarborSessionFactory`` (Harbor rollouts as trainer sessions, :mod:`.sessions`) and
``HarborTaskSessionFactory`` (a task's sandbox driven by the trainer's own loop,
:mod:`.task_sessions`)."""

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
from harbor_env.task_sessions import HarborTaskSession, HarborTaskSessionFactory

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "HarborConversation",
    "HarborEnv",
    "HarborRolloutResult",
    "HarborSession",
    "HarborSessionFactory",
    "HarborTaskRef",
    "HarborTaskSession",
    "HarborTaskSessionFactory",
    "HarborTurn",
    "ListToolsAction",
    "ListToolsObservation",
    "Tool",
    "TrainingTrace",
]
