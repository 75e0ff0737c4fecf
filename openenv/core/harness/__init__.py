"""Harness support: capture an agent's model calls as exact tokens, and engines to test against.

``openenv.core.harness`` is the reference's import path (``from openenv.core.harness import
TrainingTrace``). Subpackages: ``engine`` (a small OpenAI-compatible engine in vLLM's format, with a
scripted test mode) and ``capture`` (the capture proxy, its rollout graph and probe).
"""

from openenv.core.harness.training import TrainingTrace, TrainingTurn

__all__ = ["TrainingTrace", "TrainingTurn"]
