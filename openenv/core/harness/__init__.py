"""Harness support: capture an agent's model calls as exact tokens, and engines to test against.

``openenv.core.harness`` is the reference's import path (``from openenv.core.harness import
TrainingTrace``). Here: the training contract (:class:`TrainingTrace`) and the trainer-side
session contract (:mod:`openenv.core.harness.session`: sessions, their factory, the harness
adapter, ``TraceEntry``) and a white-box harness (:class:`MCPHarnessAdapter`: the trainer
samples each turn, the session's tools act), under ``openenv`` 0.10's names. Subpackages:
``engine`` (a small OpenAI-compatible engine in vLLM's format, with a scripted test mode) and
``capture`` (the capture proxy, its rollout graph and probe).
"""

from openenv.core.harness.session import (
    HarnessAdapter,
    HarnessRolloutResult,
    HarnessRunLimits,
    LoopOwningSession,
    Message,
    ModelStep,
    ModelStepResult,
    ResourceSession,
    ResourceSessionFactory,
    RolloutEvent,
    ToolResult,
    ToolTraceEntry,
    TraceEntry,
    TrainableSession,
    VerifyResult,
)
from openenv.core.harness.tool_loop import MCPHarnessAdapter
from openenv.core.harness.training import TrainingTrace, TrainingTurn

__all__ = [
    "HarnessAdapter",
    "HarnessRolloutResult",
    "HarnessRunLimits",
    "LoopOwningSession",
    "MCPHarnessAdapter",
    "Message",
    "ModelStep",
    "ModelStepResult",
    "ResourceSession",
    "ResourceSessionFactory",
    "RolloutEvent",
    "ToolResult",
    "ToolTraceEntry",
    "TraceEntry",
    "TrainableSession",
    "TrainingTrace",
    "TrainingTurn",
    "VerifyResult",
]
