"""Wire types of the Harbor environment: the tool-call actions, the Task API's task refs and
the rollout results (:mod:`openenv.harbor.models`, shaped as ``openenv`` 0.10's)."""

from openenv.core.harness.training import TrainingTrace, TrainingTurn
from openenv.core.mcp import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
)
from openenv.harbor.models import (
    HarborConversation,
    HarborRolloutResult,
    HarborStepResult,
    HarborTaskRef,
    HarborTurn,
)

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "HarborConversation",
    "HarborRolloutResult",
    "HarborStepResult",
    "HarborTaskRef",
    "HarborTurn",
    "ListToolsAction",
    "ListToolsObservation",
    "Tool",
    "TrainingTrace",
    "TrainingTurn",
]
