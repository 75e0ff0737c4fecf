"""GenericEnvClient: talk to any environment server with plain dicts, no models needed."""

from __future__ import annotations

from typing import Any

from openenv.client.env_client import EnvClient
from openenv.core.types import StepResult


class GenericEnvClient(EnvClient[dict, dict, dict]):
    """Actions are dicts; ``observation`` and ``state`` come back as dicts."""

    def _step_payload(self, action: Any) -> dict[str, Any]:
        if hasattr(action, "model_dump"):
            return action.model_dump(mode="json")
        if not isinstance(action, dict):
            raise TypeError(f"GenericEnvClient.step() needs a dict, got {type(action).__name__}")
        return action

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[dict[str, Any]]:
        observation = dict(payload.get("observation") or {})
        return StepResult[dict](
            observation=observation,
            reward=payload.get("reward"),
            done=bool(payload.get("done", False)),
        )

    def _parse_state(self, payload: dict[str, Any]) -> dict[str, Any]:
        return dict(payload)
