"""``openenv.core.env_server``: the package ``openenv`` 0.10 gives the server-side names.

Environment code written for 0.10 runs unchanged: ``from openenv.core.env_server import
create_app, Environment`` and the submodules it imports (``http_server``, ``types``,
``interfaces``, ``mcp_types``, ``mcp_environment``, ``serialization``, ``exceptions``,
``route_config``, ``base_transforms``) resolve here. Each is a thin façade over the module where
the name lives in this framework; nothing is implemented twice. The server entry points
(``create_app``, ``create_fastapi_app``, ``HTTPEnvServer``) are imported on first use, so
importing this package (or ``openenv.core``) loads no server.

0.10 names with no counterpart here are not provided: its ``WS*`` message models (our server
parses the same JSON in :mod:`openenv.server.protocol`) and its own web interface (our
playground is mounted at ``/web`` instead).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from openenv.core.env_server.base_transforms import CompositeTransform, NullTransform
from openenv.core.env_server.exceptions import (
    ConcurrencyConfigurationError,
    EnvironmentFactoryError,
    OpenEnvError,
    SessionCapacityError,
    SessionCreationError,
    SessionNotFoundError,
)
from openenv.core.env_server.interfaces import (
    Environment,
    Message,
    ModelTokenizer,
    TaskProvider,
    Transform,
)
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import (
    RESERVED_TOOL_NAMES,
    CallToolAction,
    CallToolObservation,
    JsonRpcError,
    JsonRpcErrorCode,
    JsonRpcRequest,
    JsonRpcResponse,
    ListToolsAction,
    ListToolsObservation,
    McpMethod,
    Tool,
    ToolError,
    ToolErrorType,
    WSMCPMessage,
    WSMCPResponse,
)
from openenv.core.env_server.route_config import GetEndpointConfig
from openenv.core.env_server.serialization import (
    deserialize_action,
    deserialize_action_with_preprocessing,
    serialize_observation,
)
from openenv.core.env_server.types import (
    Action,
    BaseMessage,
    CodeExecResult,
    ConcurrencyConfig,
    EnvironmentMetadata,
    HealthResponse,
    HealthStatus,
    Observation,
    SchemaResponse,
    ServerMode,
    State,
    WSErrorCode,
)

if TYPE_CHECKING:
    from openenv.core.env_server.http_server import (
        HTTPEnvServer as HTTPEnvServer,
    )
    from openenv.core.env_server.http_server import (
        create_app as create_app,
    )
    from openenv.core.env_server.http_server import (
        create_fastapi_app as create_fastapi_app,
    )

_SERVER_NAMES = ("HTTPEnvServer", "create_app", "create_fastapi_app")

__all__ = [
    "RESERVED_TOOL_NAMES",
    "Action",
    "BaseMessage",
    "CallToolAction",
    "CallToolObservation",
    "CodeExecResult",
    "CompositeTransform",
    "ConcurrencyConfig",
    "ConcurrencyConfigurationError",
    "Environment",
    "EnvironmentFactoryError",
    "EnvironmentMetadata",
    "GetEndpointConfig",
    "HTTPEnvServer",
    "HealthResponse",
    "HealthStatus",
    "JsonRpcError",
    "JsonRpcErrorCode",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "ListToolsAction",
    "ListToolsObservation",
    "MCPEnvironment",
    "McpMethod",
    "Message",
    "ModelTokenizer",
    "NullTransform",
    "Observation",
    "OpenEnvError",
    "SchemaResponse",
    "ServerMode",
    "SessionCapacityError",
    "SessionCreationError",
    "SessionNotFoundError",
    "State",
    "TaskProvider",
    "Tool",
    "ToolError",
    "ToolErrorType",
    "Transform",
    "WSErrorCode",
    "WSMCPMessage",
    "WSMCPResponse",
    "create_app",
    "create_fastapi_app",
    "deserialize_action",
    "deserialize_action_with_preprocessing",
    "serialize_observation",
]


def __getattr__(name: str) -> Any:
    """The server entry points, from :mod:`.http_server` on first use (core loads no server)."""
    if name in _SERVER_NAMES:
        value = getattr(importlib.import_module("openenv.core.env_server.http_server"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'openenv.core.env_server' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_SERVER_NAMES})
