"""Drive one of our servers with the real ``openenv==0.10.0`` client (run by the compat tests).

Usage: ``<ref-venv>/bin/python drive_our_server.py http://127.0.0.1:PORT``. Prints one JSON
object with what each client saw; the test asserts on it. Runs only the reference package.
"""

import asyncio
import json
import sys
from typing import Any

from openenv.core import EnvClient, GenericEnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.types import Action, Observation, State

WALK = ["DOWN"] * 4 + ["RIGHT"] * 4


class GridAction(Action):
    action: str


class GridObservation(Observation):
    x: int = 0
    y: int = 0
    message: str = ""


class GridState(State):
    x: int = 0
    y: int = 0


class GridClient(EnvClient[GridAction, GridObservation, GridState]):
    """A typed client written the way the reference's templates write them."""

    def _step_payload(self, action: GridAction) -> dict[str, Any]:
        return action.model_dump()

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[GridObservation]:
        obs = GridObservation(
            **payload.get("observation", {}),
            done=payload.get("done", False),
            reward=payload.get("reward"),
        )
        return StepResult(
            observation=obs, reward=payload.get("reward"), done=payload.get("done", False)
        )

    def _parse_state(self, payload: dict[str, Any]) -> GridState:
        return GridState(**payload)


def generic_walk(base_url: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with GenericEnvClient(base_url=base_url).sync() as env:
        first = env.reset(seed=3, episode_id="ref-generic")
        seen["reset"] = {"observation": first.observation, "done": first.done}
        rewards = []
        for move in WALK:
            result = env.step({"action": move})
            rewards.append(result.reward)
        seen["rewards"] = rewards
        seen["final"] = {"observation": result.observation, "done": result.done}
        seen["state"] = env.state()
        try:
            env.reset()
            env.step({"action": "DIAGONAL"})
            seen["invalid"] = "no error"
        except RuntimeError as exc:
            seen["invalid"] = str(exc)
        seen["after_invalid"] = env.step({"action": "DOWN"}).observation
    return seen


async def typed_walk(base_url: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with GridClient(base_url=base_url) as env:
        await env.reset(episode_id="ref-typed")
        for move in WALK:
            result = await env.step(GridAction(action=move))
        seen["final"] = {
            "x": result.observation.x,
            "y": result.observation.y,
            "reward": result.reward,
            "done": result.done,
        }
        state = await env.state()
        seen["state"] = {"episode_id": state.episode_id, "step_count": state.step_count}
        try:
            await env.step(GridAction(action="UP", metadata={"note": "after done"}))
            seen["after_done"] = "no error"
        except RuntimeError as exc:
            seen["after_done"] = str(exc)
    return seen


if __name__ == "__main__":
    url = sys.argv[1]
    report = {"generic": generic_walk(url), "typed": asyncio.run(typed_walk(url))}
    print(json.dumps(report))
