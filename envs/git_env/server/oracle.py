"""Git's oracle, for the ``revert_commit`` task: ``git revert --no-edit HEAD`` in the task's
clone, then submit: the repository's tests pass on main with its history kept, 1.0.

Score: the final reward. Random read-only clicks (status, log, diff, list) and a submit change
nothing (0.0); canaries submit at once, and run a git command that does not exist.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

WHERE = {"working_dir": "greeter"}
SUBMIT = {"action_type": "submit"}


def _git(command: str) -> dict[str, Any]:
    return {"action_type": "execute_git_command", "command": command, **WHERE}


class GitOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    reset_options = {"task_id": "revert_commit"}
    max_steps = 4
    probe_steps = 5

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return _git("revert --no-edit HEAD") if env.state.step_count == 0 else SUBMIT

    def canaries(self) -> list[Canary]:
        return [
            Canary.sequence("claim_done", "submits without working", [SUBMIT]),
            Canary.sequence("bad_command", "a git command that does not exist", [_git("teleport")]),
        ]


ORACLE = GitOracle()
