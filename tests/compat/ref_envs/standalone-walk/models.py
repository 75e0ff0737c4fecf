"""Wire types of the walk."""

from openenv_core.env_server.types import Action, Observation
from pydantic import Field


class WalkAction(Action):
    delta: int = Field(ge=-1, le=1, description="-1 (left) or +1 (right)")


class WalkObservation(Observation):
    position: int = 0
