"""Wire types of the git environment, shared by its client and its server.

The reference's names and defaults (``action_type``, ``repo_name``, ``target_dir``,
``command``, ``working_dir``; ``success``, ``message``, ``output``, ``error``, ``repos``;
``gitea_ready``, ``workspace_path``), with more action types and the fields they need.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from openenv.core import Action, Observation, State

ActionType = Literal[
    "list_repos",
    "clone_repo",
    "execute_git_command",
    "read_file",
    "write_file",
    "run_command",
    "submit",
]


class GitAction(Action):
    """One operation in the workspace (``~``, the session's sandboxed working directory).

    * ``list_repos``: the repositories that can be cloned.
    * ``clone_repo``: clone ``repo_name`` into ``target_dir`` (default: its name).
    * ``execute_git_command``: run ``git <command>`` (``"status"`` or ``"git status"``) in
      ``working_dir``.
    * ``read_file`` / ``write_file``: the file ``path`` (relative to ``working_dir``).
    * ``run_command``: a shell command line in ``working_dir`` (e.g. the tests).
    * ``submit``: check the task and end the episode.
    """

    action_type: ActionType = Field(default="list_repos", description="The operation")
    repo_name: str = Field(default="", max_length=100, description="Repository (clone_repo)")
    target_dir: str | None = Field(
        default=None, max_length=200, description="Where to clone, relative to ~ (clone_repo)"
    )
    command: str = Field(
        default="", max_length=10_000, description="git arguments, or a shell command line"
    )
    working_dir: str = Field(
        default="", max_length=500, description="Directory relative to ~ (e.g. the clone)"
    )
    path: str = Field(default="", max_length=500, description="File (read_file, write_file)")
    content: str = Field(
        default="",
        max_length=200_000,
        description="The file's new text (write_file)",
        json_schema_extra={"format": "textarea"},
    )


class GitObservation(Observation):
    success: bool = Field(default=False, description="Whether the operation succeeded")
    message: str = Field(default="", description="What happened, in a sentence")
    output: str = Field(default="", description="Output of the command, or the file's text")
    error: str = Field(default="", description="Why it failed, when it did")
    repos: list[dict[str, str]] = Field(
        default_factory=list, description="name, clone_url, description (list_repos)"
    )


class GitState(State):
    gitea_ready: bool = Field(
        default=False, description="The repository store is ready (no Gitea: local repos)"
    )
    workspace_path: str = Field(default="~", description="The working directory (`~`)")
    task_id: str | None = Field(default=None, description="The episode's task, if any")
    instruction: str = Field(default="", description="What the task asks")
    cloned: list[str] = Field(default_factory=list, description="Clones made, relative to ~")
    network_access: bool = Field(default=False, description="CODING_NETWORK=on on the server")
    task_source: str | None = Field(
        default=None, description="The task file or dataset the task is a row of"
    )
    task_index: int | None = Field(default=None, description="Its row there")
