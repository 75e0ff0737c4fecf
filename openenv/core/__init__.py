"""Wire types, the Environment contract, views and errors. Imports neither server nor client.

``from openenv.core import EnvClient`` (and the other client classes of ``openenv`` 0.10's
``openenv.core``) still works: those names are looked up in :mod:`openenv.client` on first
use, so importing ``openenv.core`` loads no client. ``openenv.core.env_server`` is the 0.10
import path of the server-side names (:mod:`openenv.core.env_server`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from openenv.core.environment import Environment
from openenv.core.errors import (
    CallTimeout,
    CapacityReached,
    ClientError,
    ConnectFailed,
    ConnectionLost,
    ExecutionError,
    FactoryError,
    InvalidAction,
    InvalidJSON,
    MixedModes,
    OpenEnvError,
    ProtocolMismatch,
    ResetNeeded,
    ServerError,
    SessionLost,
    SessionNotFound,
    ToolCallError,
    Unauthorized,
    UnknownMessageType,
)
from openenv.core.types import Action, Observation, State, StepResult
from openenv.core.views import (
    ActionChoice,
    ActionSliders,
    Board,
    Cell,
    Frame,
    Slider,
    Svg,
    Text,
    View,
)

if TYPE_CHECKING:  # what the lazy names below are, for type checkers
    from openenv.client.env_client import EnvClient as EnvClient
    from openenv.client.generic import GenericEnvClient as GenericEnvClient
    from openenv.client.sync import SyncEnvClient as SyncEnvClient
    from openenv.client.tool_client import MCPToolClient as MCPToolClient

# openenv 0.10 exported its clients from openenv.core; here they live in openenv.client.
_CLIENT_NAMES = {
    "EnvClient": "openenv.client.env_client",
    "GenericEnvClient": "openenv.client.generic",
    "MCPToolClient": "openenv.client.tool_client",
    "SyncEnvClient": "openenv.client.sync",
}


def __getattr__(name: str) -> Any:
    """The client classes of ``openenv.core`` (0.10's import path), imported on first use."""
    if name in _CLIENT_NAMES:
        value = getattr(importlib.import_module(_CLIENT_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'openenv.core' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_CLIENT_NAMES})


__all__ = [
    "Action",
    "ActionChoice",
    "ActionSliders",
    "Board",
    "CallTimeout",
    "CapacityReached",
    "Cell",
    "ClientError",
    "ConnectFailed",
    "ConnectionLost",
    "Environment",
    "ExecutionError",
    "FactoryError",
    "Frame",
    "InvalidAction",
    "InvalidJSON",
    "MixedModes",
    "Observation",
    "OpenEnvError",
    "ProtocolMismatch",
    "ResetNeeded",
    "ServerError",
    "SessionLost",
    "SessionNotFound",
    "Slider",
    "State",
    "StepResult",
    "Svg",
    "Text",
    "ToolCallError",
    "Unauthorized",
    "UnknownMessageType",
    "View",
]
