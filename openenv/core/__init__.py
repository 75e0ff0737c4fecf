"""Wire types, the Environment contract, views and errors. Imports neither server nor client."""

from openenv.core.environment import Environment
from openenv.core.errors import (
    CapacityReached,
    ClientError,
    ExecutionError,
    FactoryError,
    InvalidAction,
    InvalidJSON,
    OpenEnvError,
    ResetNeeded,
    SessionNotFound,
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

__all__ = [
    "Action",
    "ActionChoice",
    "ActionSliders",
    "Board",
    "CapacityReached",
    "Cell",
    "ClientError",
    "Environment",
    "ExecutionError",
    "FactoryError",
    "Frame",
    "InvalidAction",
    "InvalidJSON",
    "Observation",
    "OpenEnvError",
    "ResetNeeded",
    "SessionNotFound",
    "Slider",
    "State",
    "StepResult",
    "Svg",
    "Text",
    "Unauthorized",
    "UnknownMessageType",
    "View",
]
