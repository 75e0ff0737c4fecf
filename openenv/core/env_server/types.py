"""``openenv.core.env_server.types``: the wire types at ``openenv`` 0.10's import path.

``Action``, ``Observation`` and ``State`` are ours (:mod:`openenv.core.types`). The small
models env code of 0.10 builds by hand (``EnvironmentMetadata`` from ``get_metadata()``,
``CodeExecResult``, ``ConcurrencyConfig``, the request and response bodies of the HTTP routes)
are defined here with 0.10's field names; the ``WS*`` message classes are not: our server
parses the same JSON in :mod:`openenv.server.protocol`.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from openenv.core.types import Action, Observation, State

__all__ = [
    "Action",
    "BaseMessage",
    "CodeExecResult",
    "ConcurrencyConfig",
    "EnvironmentMetadata",
    "HealthResponse",
    "HealthStatus",
    "Observation",
    "ResetRequest",
    "ResetResponse",
    "SchemaResponse",
    "ServerMode",
    "State",
    "StepRequest",
    "StepResponse",
    "WSErrorCode",
]


class ServerMode(str, Enum):
    """``simulation`` (reset/step/state served) or ``production`` (tools and health only)."""

    SIMULATION = "simulation"
    PRODUCTION = "production"


class HealthStatus(str, Enum):
    """What ``GET /health`` reports."""

    HEALTHY = "healthy"
    UNHEALTHY = "unhealthy"
    DEGRADED = "degraded"


class WSErrorCode(str, Enum):
    """The ``code`` of a ``/ws`` error reply (the same strings our server sends)."""

    INVALID_JSON = "INVALID_JSON"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    CAPACITY_REACHED = "CAPACITY_REACHED"
    FACTORY_ERROR = "FACTORY_ERROR"
    SESSION_ERROR = "SESSION_ERROR"


class BaseMessage(BaseModel):
    """A strict message model: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class CodeExecResult(BaseMessage):
    """What running a piece of code gave: its output streams and exit code."""

    stdout: str
    stderr: str
    exit_code: int


class EnvironmentMetadata(BaseMessage):
    """An environment's self-description (what ``Environment.get_metadata()`` returns)."""

    name: str
    description: str
    readme_content: str | None = None
    version: str | None = None
    author: str | None = None
    documentation_url: str | None = None


class ConcurrencyConfig(BaseMessage):
    """How many sessions a server hosts at once, and when an idle one is closed."""

    max_concurrent_envs: int = Field(default=1, ge=1)
    session_timeout: float | None = Field(default=None, gt=0)


class ResetRequest(BaseModel):
    """The body of ``POST /reset``: ``seed``, ``episode_id`` and the env's own options."""

    model_config = ConfigDict(extra="allow")

    seed: int | None = Field(default=None, ge=0)
    episode_id: str | None = Field(default=None, max_length=255)


class StepRequest(BaseModel):
    """The body of ``POST /step``."""

    model_config = ConfigDict(extra="allow")

    action: dict[str, Any]
    timeout_s: float | None = Field(default=None, gt=0)
    request_id: str | None = Field(default=None, max_length=255)


class ResetResponse(BaseModel):
    """What ``POST /reset`` answers."""

    model_config = ConfigDict(extra="forbid")

    observation: dict[str, Any]
    reward: float | None = None
    done: bool = False
    metadata: dict[str, Any] | None = None


class StepResponse(ResetResponse):
    """What ``POST /step`` answers."""


class SchemaResponse(BaseMessage):
    """What ``GET /schema`` answers: the JSON schemas of the wire types."""

    action: dict[str, Any]
    observation: dict[str, Any]
    state: dict[str, Any]
    reset_observation: dict[str, Any] | None = None


class HealthResponse(BaseMessage):
    """What ``GET /health`` answers."""

    status: HealthStatus = HealthStatus.HEALTHY
