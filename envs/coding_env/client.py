"""Typed client of the coding server."""

from __future__ import annotations

from coding_env.models import CodeAction, CodeObservation, CodeState
from openenv.client import EnvClient


class CodingEnv(EnvClient[CodeAction, CodeObservation, CodeState]):
    """``async with CodingEnv(base_url=...) as env`` or ``CodingEnv(...).sync()``."""

    async def run(self, code: str):
        """Run ``code`` as one step; same as ``step(CodeAction(code=code))``."""
        return await self.step(CodeAction(code=code))
