"""Typed client of the tbench2_env server."""

from __future__ import annotations

from openenv.client import EnvClient
from openenv.core import StepResult
from tbench2_env.models import Tbench2Action, Tbench2Observation, Tbench2State


class Tbench2Env(EnvClient[Tbench2Action, Tbench2Observation, Tbench2State]):
    """``async with Tbench2Env(base_url=...) as env`` or ``Tbench2Env(...).sync()``.

    ``env.reset(task_id="csv-summary")``, then ``env.step(Tbench2Action(command="ls"))``, and
    ``env.step(Tbench2Action(action_type="evaluate"))`` for the reward; ``env.run("ls")`` and
    ``env.evaluate()`` say the same in fewer words.
    """

    async def run(self, command: str) -> StepResult[Tbench2Observation]:
        """Run one command to its end (``exec``)."""
        return await self.step(Tbench2Action(action_type="exec", command=command))

    async def evaluate(self) -> StepResult[Tbench2Observation]:
        """Run the task's tests: reward 1.0 when they all pass; the episode ends."""
        return await self.step(Tbench2Action(action_type="evaluate"))
