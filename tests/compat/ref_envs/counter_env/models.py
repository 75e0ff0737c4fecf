"""Wire types: add 1 or 2 to the count; reach exactly 10."""

from pydantic import Field

from openenv.core.env_server.types import Action, Observation


class CounterAction(Action):
    amount: int = Field(ge=1, le=2, description="How much to add: 1 or 2")


class CounterObservation(Observation):
    count: int = 0
    target: int = 10
