"""A code cell, as published envs write one for ``openenv==0.10.0``: the action is Python code.

Why: the playground must give ``code`` a multi-line editor (newlines reach the remote: a
two-line program runs), and draw ``maze`` sent only inside ``metadata`` as nested lists.

- Action ``{"code": "..."}``: the code's lines are counted, not run (``stdout`` says how many
  lines and whether it compiles).
- Observation ``stdout``; ``metadata["maze"]``: a 3×4 grid of 0 (open) and 1 (wall).
"""

import os
from uuid import uuid4

from pydantic import Field

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State

MAZE = [[0, 1, 0, 0], [0, 1, 0, 1], [0, 0, 0, 0]]


class CodeAction(Action):
    code: str = Field(description="Python source to run")


class CodeObservation(Observation):
    stdout: str = ""


class CodeEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self._state = State(episode_id=str(uuid4()))

    def reset(self, seed=None, episode_id=None, **kwargs) -> CodeObservation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        return CodeObservation(stdout="ready", reward=0.0, metadata={"maze": MAZE})

    def step(self, action: CodeAction, timeout_s=None, **kwargs) -> CodeObservation:
        self._state.step_count += 1
        try:
            compile(action.code, "<cell>", "exec")
            ok = "compiles"
        except SyntaxError:
            ok = "SyntaxError"
        lines = len(action.code.splitlines())
        return CodeObservation(
            stdout=f"{lines} lines, {ok}", reward=float(ok == "compiles"), metadata={"maze": MAZE}
        )

    @property
    def state(self) -> State:
        return self._state


app = create_app(
    CodeEnvironment,
    CodeAction,
    CodeObservation,
    env_name="code_cell",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
)
