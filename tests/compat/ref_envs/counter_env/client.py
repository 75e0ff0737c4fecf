"""The typed client, written the way ``openenv`` 0.10's clients are."""

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.types import State

from .models import CounterAction, CounterObservation


class CounterEnv(EnvClient[CounterAction, CounterObservation, State]):
    def _step_payload(self, action: CounterAction) -> dict:
        return {"amount": action.amount}

    def _parse_result(self, payload: dict) -> StepResult[CounterObservation]:
        observation = CounterObservation(**payload["observation"])
        return StepResult(
            observation=observation, reward=payload.get("reward"), done=payload["done"]
        )

    def _parse_state(self, payload: dict) -> State:
        return State(**payload)
