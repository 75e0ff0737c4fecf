"""``openenv.core.env_server``: the import path ``openenv`` 0.10 gives the server-side names.

Code written for 0.10 (``from openenv.core.env_server import create_app, Environment``) runs
unchanged: this module only re-exports, from where the names live here. ``create_app`` is
:func:`openenv.server.create_app`, imported on first use, so importing this module (or
``openenv.core``) loads no server.

0.10 names with no counterpart here are not provided (``HTTPEnvServer``, ``create_fastapi_app``:
use ``create_app(..., enable_web=False)``; ``Message`` and ``ModelTokenizer``, which belong to
0.10's chat environment; its ``WS*`` message models: :mod:`openenv.server.protocol` parses the
same JSON).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from openenv.core.environment import Environment
from openenv.core.errors import OpenEnvError
from openenv.core.mcp import (
    RESERVED_TOOL_NAMES,
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    MCPEnvironment,
    Tool,
    ToolError,
    ToolErrorType,
)
from openenv.core.transforms import Transform
from openenv.core.types import Action, Observation, State

if TYPE_CHECKING:
    from openenv.server.app import create_app as create_app

__all__ = [
    "RESERVED_TOOL_NAMES",
    "Action",
    "CallToolAction",
    "CallToolObservation",
    "Environment",
    "ListToolsAction",
    "ListToolsObservation",
    "MCPEnvironment",
    "Observation",
    "OpenEnvError",
    "State",
    "Tool",
    "ToolError",
    "ToolErrorType",
    "Transform",
    "create_app",
]


def __getattr__(name: str) -> Any:
    """``create_app``, from :mod:`openenv.server` on first use (core loads no server)."""
    if name == "create_app":
        value = importlib.import_module("openenv.server.app").create_app
        globals()[name] = value
        return value
    raise AttributeError(f"module 'openenv.core.env_server' has no attribute {name!r}")
