"""What one environment server knows about itself; stored on ``app.state.openenv``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openenv.core.environment import Environment
from openenv.core.registry import EnvPackage, Manifest
from openenv.core.types import Action, Observation, State
from openenv.server.clients import client_address, quota_owner
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

    proxies: int = 0  # proxies in front that append X-Forwarded-For (openenv.server.clients)

    @property
    def manifest(self) -> Manifest:
        return self.package.manifest

    def owner_of(self, scope: Mapping[str, Any]) -> str | None:
        """What a session opened by this request counts against (the client's address, or
        nobody for loopback and holders of the API token: see :mod:`openenv.server.clients`).
        Call it once the request passed the token check."""
        host = (scope.get("client") or (None,))[0]
        address = client_address(host, scope.get("headers") or (), self.proxies)
        return quota_owner(address, trusted=self.token is not None)
