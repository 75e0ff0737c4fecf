"""What one environment server knows about itself; stored on ``app.state.openenv``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openenv.core.environment import Environment
from openenv.core.registry import EnvPackage, Manifest
from openenv.core.types import Action, Observation, State
from openenv.server.sessions import SessionManager


@dataclass
class ServerContext:
    env_factory: Callable[[], Environment]
    env_cls: type[Environment] | None
    action_cls: type[Action]
    observation_cls: type[Observation]
    state_cls: type[State]
    package: EnvPackage
    manager: SessionManager
    token: str | None = None
    web: dict[str, Any] = field(default_factory=dict)

    @property
    def manifest(self) -> Manifest:
        return self.package.manifest
