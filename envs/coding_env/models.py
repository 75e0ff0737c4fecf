"""Wire types of the coding environment, shared by its client and its server."""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State


class CodeAction(Action):
    code: str = Field(
        description="Python code to run in the episode's interpreter",
        json_schema_extra={"format": "textarea"},  # the playground writes it over several lines
    )


class CodeObservation(Observation):
    stdout: str = Field(default="", description="Standard output of the code")
    stderr: str = Field(default="", description="Standard error (tracebacks, sandbox limits)")
    exit_code: int = Field(default=0, description="0 on success, non-zero on errors")


class CodeState(State):
    last_exit_code: int = Field(default=0, description="Exit code of the last execution")
    network_access: bool = Field(
        default=False, description="Whether the code may use the network (CODING_NETWORK=on)"
    )
