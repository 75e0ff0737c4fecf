"""Typed client of the REPL server, with the reference's helpers (``execute``...)."""

from __future__ import annotations

from openenv.client import EnvClient
from openenv.core import StepResult
from repl_env.models import REPLAction, REPLObservation, REPLState


class REPLEnv(EnvClient[REPLAction, REPLObservation, REPLState]):
    """``async with REPLEnv(base_url=...) as env`` or ``REPLEnv(...).sync()``."""

    async def execute(self, code: str) -> StepResult[REPLObservation]:
        """Run ``code`` as one cell: ``step(REPLAction(code=code))``."""
        return await self.step(REPLAction(code=code))

    async def submit_final_answer(self, answer: str) -> StepResult[REPLObservation]:
        """Submit ``answer`` and end the episode (the task's checker scores it)."""
        return await self.step(REPLAction(is_final=True, final_answer=answer))

    async def get_variable(self, name: str) -> StepResult[REPLObservation]:
        """Print ``repr(name)`` in the interpreter (a step, like the reference's)."""
        return await self.execute(f"print(repr({name}))")

    async def list_variables(self) -> list[str]:
        """The names defined in the interpreter."""
        return (await self.state()).namespace_keys
