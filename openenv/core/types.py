"""Wire types shared by servers and clients (pydantic v2).

Field names and defaults follow the ``openenv`` 0.10.x package so that either side of the wire
can be ours or theirs.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field


class Action(BaseModel):
    """Base class of every action. Unknown fields are refused, never silently dropped."""

    model_config = ConfigDict(
        extra="forbid", validate_assignment=True, arbitrary_types_allowed=True
    )

    metadata: dict[str, Any] = Field(default_factory=dict, description="Free-form action metadata")


class Observation(BaseModel):
    """Base class of every observation; the reward and the end of episode travel on it."""

    model_config = ConfigDict(
        extra="forbid", validate_assignment=True, arbitrary_types_allowed=True
    )

    done: bool = Field(default=False, description="True once the episode has ended")
    reward: bool | int | float | None = Field(default=None, description="Reward of the last step")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Free-form metadata")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        """Jupyter shows the observation's picture (its frame, board or grid), if it has one."""
        return _notebook("observation_bundle", self)


class State(BaseModel):
    """Episode bookkeeping; environments add their own fields (extra fields are allowed)."""

    model_config = ConfigDict(extra="allow", validate_assignment=True, arbitrary_types_allowed=True)

    episode_id: str | None = Field(default=None, description="Identifier of the current episode")
    step_count: int = Field(default=0, ge=0, description="Steps taken in the current episode")


# The type parameters of StepResult and of the clients (``EnvClient[ActT, ObsT, StateT]``).
ActT = TypeVar("ActT")
ObsT = TypeVar("ObsT")
StateT = TypeVar("StateT")


class StepResult(BaseModel, Generic[ObsT]):
    """What a client gets back from ``reset()`` and ``step()``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    observation: ObsT
    reward: float | None = None
    done: bool = False
    metadata: dict[str, Any] | None = None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        """Jupyter shows the observation's picture with the reward, if it has one."""
        return _notebook("result_bundle", self)


def _notebook(drawer: str, obj: Any) -> Any:
    """The rich display of ``obj`` by :mod:`openenv.web.drawing.notebook` (imported only when a
    notebook asks: the web layer draws, core describes); ``None``: IPython's usual text."""
    try:
        from openenv.web.drawing import notebook
    except ImportError:
        return None
    return getattr(notebook, drawer)(obj)
