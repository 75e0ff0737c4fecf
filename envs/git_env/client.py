"""Typed client of the git server."""

from __future__ import annotations

from git_env.models import GitAction, GitObservation, GitState
from openenv.client import EnvClient
from openenv.core import StepResult


class GitEnv(EnvClient[GitAction, GitObservation, GitState]):
    """``async with GitEnv(base_url=...) as env`` or ``GitEnv(...).sync()``.

    ``step(GitAction(action_type="clone_repo", repo_name="calculator"))`` and the rest, as in
    the reference; ``git(command, working_dir)`` is ``execute_git_command`` in one call.
    """

    async def git(self, command: str, working_dir: str = "") -> StepResult[GitObservation]:
        """Run ``git <command>`` in ``working_dir`` as one step."""
        action = GitAction(
            action_type="execute_git_command", command=command, working_dir=working_dir
        )
        return await self.step(action)
