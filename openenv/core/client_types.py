"""``openenv.core.client_types``: ``StepResult`` at ``openenv`` 0.10's import path (ours:
:class:`openenv.core.types.StepResult`; built the same way, ``StepResult(observation=...,
reward=..., done=...)``)."""

from openenv.core.types import ObsT, StateT, StepResult

__all__ = ["ObsT", "StateT", "StepResult"]
