"""Git: clone local repositories into a sandboxed workspace, edit, commit, branch and push.

Actions (:class:`~git_env.models.GitAction`, ``action_type``): ``list_repos``, ``clone_repo``
(``repo_name``, ``target_dir``), ``execute_git_command`` (``command``: the arguments of git,
``working_dir``), ``read_file`` / ``write_file`` (``path``, ``content``), ``run_command`` (a
shell command line in ``working_dir``) and ``submit``. Paths are relative to ``~``, the
session's working directory. Observation: ``success``, ``message``, ``output``, ``error``,
``repos`` (the reference's fields). State: ``gitea_ready`` (the local store is ready),
``workspace_path``, ``task_id``, ``instruction``, ``cloned``, ``network_access``.

The repositories are bare repositories the server builds from shipped data
(:mod:`git_env.server.store`); no Gitea, no network. A clone's ``origin`` is the session's own
copy of the shared repository (``/tmp/origin/<repo>.git`` in the sandbox), so ``git push``
works and changes nothing for anyone else. Every operation runs in the session's
:class:`openenv.sandbox.Sandbox` (coding_env's isolation and ``CODING_*`` limits), with fixed
commit dates (one minute per step), so the same actions give the same commit ids.

Reset options: ``task_id`` (one of :data:`~git_env.server.tasks.TASKS`: its repository is
cloned into ``~/<repo>`` and its instruction is in the observation's ``output``) and
``max_steps``; or ``task_source`` (a task file such as the shipped ``starter.jsonl``, or a
dataset) and ``task_index`` (its row; none: the seed picks one), whose row names a ``task_id``,
looked up as ``task_id`` is (nothing of a row is run). Reward: 0.0 per step; ``submit``
scores the task (by running the repository's original tests on the committed ``main``) and ends
the episode; without a task it ends it with 0.0. A bad action (an unknown repository, a
missing argument, a failing command) gives ``success=False`` with the reason in ``error``; the
episode goes on.
"""

from __future__ import annotations

import json
import posixpath
import shlex
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import Field, TypeAdapter

from git_env.models import GitAction, GitObservation, GitState
from git_env.server.store import RepoStore, shared_store
from git_env.server.tasks import TASKS, Task, origin_of
from git_env.server.view import GitView, draw, look
from openenv.core import ActionChoice, Environment, Text, View
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.sandbox import SandboxLimits
from openenv.sandbox.shell import Shell, ShellResult

AGENT_EPOCH = 1_717_243_200  # 2024-06-01T12:00:00Z: the agent's commits, a minute per step
TaskId = Literal["fix_failing_test", "revert_commit", "feature_branch"]
Steps = Annotated[int, Field(ge=1, le=1000, description="steps before the episode is cut")]
# A row of a task file: one of the env's tasks, by its id (looked up as ``task_id`` is). Nothing
# of a row is run: the task's own repository, instruction and checker are.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(fields={"task_id": ("task_id", "task", "id")}),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=64)]
)


def row_task(picked: PickedTask) -> str:
    """The task id a row names; a TaskSourceError names the row and what does not fit."""
    task_id = picked.valid(_ROW_ID, picked.task["task_id"])
    if task_id not in get_args(TaskId):
        raise picked.error(f"no task {task_id!r}; tasks: {', '.join(get_args(TaskId))}")
    return task_id


_CLONE = r"""[ -d "$1" ] || git clone -q --bare "$2" "$1" || exit 1
git clone -q "$1" "$3" && git -C "$3" rev-parse --short HEAD
"""
_WRITE = r"""
import json as _oe_json, os as _oe_os
_oe_path, _oe_text = _oe_json.loads({args!r})
_oe_os.makedirs(_oe_os.path.dirname(_oe_path) or ".", exist_ok=True)
with open(_oe_path, "w", encoding="utf-8") as _oe_f:
    _oe_f.write(_oe_text)
"""


class _Refused(Exception):
    """An action that cannot run as given (the message says why); the episode goes on."""


class GitEnvironment(Environment[GitAction, GitObservation, GitState]):
    how_to_play = (
        "Solve the task with git and shell commands typed below the log (clone, edit, "
        "commit); the repository's tests score your work."
    )
    CALL_TIMEOUT_S = 120.0

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self._limits = limits or SandboxLimits.for_package("git_env")
        self._store: RepoStore | None = None
        self._shell: Shell | None = None
        self._task: Task | None = None
        self._focus: str | None = None  # the clone the view shows, relative to ~
        self._last: tuple[str, str] = ("", "")
        self._max_steps = 200
        self._view: tuple[int, GitView] | None = None
        self._state = GitState()

    # -- the contract -------------------------------------------------------------------------

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: TaskId | None = None,
        max_steps: Steps = 200,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> GitObservation:
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "task", task_id=task_id)
        if picked is not None:
            task_id = row_task(picked)  # type: ignore[assignment]  # one of TaskId, checked
        self._close_shell()
        self._store = shared_store()
        self._task = TASKS[task_id] if task_id else None
        self._focus, self._last, self._view, self._max_steps = None, ("", ""), None, max_steps
        self._state = GitState(
            episode_id=episode_id or str(uuid.uuid4()),
            gitea_ready=True,
            task_id=task_id,
            instruction=self._task.instruction if self._task else "",
            network_access=self._limits.network,
            task_source=picked.source if picked else None,
            task_index=picked.index if picked else None,
        )
        self._shell = Shell(self._limits)
        if self._task is None:
            return GitObservation(
                success=True,
                message="Git environment ready.",
                output="Workspace: ~\nRepositories: "
                + ", ".join(self._store.repos)
                + "\nUse GitAction(action_type='clone_repo', repo_name=...) to clone one.",
                reward=0.0,
            )
        return self._start_task(self._task)

    def step(self, action: GitAction) -> GitObservation:
        handler: Callable[[GitAction], GitObservation] = getattr(self, f"_{action.action_type}")
        try:
            obs = handler(action)
        except _Refused as exc:
            obs = GitObservation(success=False, message=str(exc), error=str(exc))
        self._state.step_count += 1
        if obs.reward is None:
            obs.reward = 0.0
        if not obs.done and self._state.step_count >= self._max_steps:
            obs.done, obs.metadata = True, {**obs.metadata, "truncated": True}
        self._last = (_label(action), obs.output or obs.error or obs.message)
        return obs

    @property
    def state(self) -> GitState:
        return self._state

    def close(self) -> None:
        self._close_shell()

    # -- playground -------------------------------------------------------------------------

    def render(self) -> View | None:
        if self._shell is None or self._store is None:
            return None
        key = self._state.step_count
        if self._view is None or self._view[0] != key:
            seen = look(self._shell, self._dir(self._focus), self._env()) if self._focus else None
            self._view = (key, seen or GitView())
        names = list(self._store.repos)
        return Text(draw(self._state, self._focus, self._view[1], self._last, names))

    def legal_actions(self) -> list[ActionChoice]:
        """Common operations one click away (any action may be typed in the form)."""
        if self._store is None:
            return []
        choices = [ActionChoice("List repos", {"action_type": "list_repos"})]
        if self._focus:
            where = {"working_dir": self._focus}
            for label, command in (
                ("git status", "status"),
                ("git log", "log --oneline --graph --all"),
                ("git diff", "diff"),
            ):
                choices.append(ActionChoice(label, _git(command, where)))
            run = {"action_type": "run_command", "command": "python3 run_tests.py", **where}
            choices.append(ActionChoice("Run tests", run))
        for name in self._store.repos:
            if name not in self._state.cloned:
                clone = {"action_type": "clone_repo", "repo_name": name}
                choices.append(ActionChoice(f"Clone {name}", clone))
        return [*choices, ActionChoice("Submit", {"action_type": "submit"})]

    # -- the actions --------------------------------------------------------------------------

    def _list_repos(self, action: GitAction) -> GitObservation:
        store = self._need_store()
        repos = [
            {"name": r.name, "clone_url": f"file://{r.path}", "description": r.description}
            for r in store.repos.values()
        ]
        lines = [f"  - {r['name']}: {r['clone_url']}\n    {r['description']}" for r in repos]
        output = "Available repositories:\n" + "\n".join(lines)
        message = f"Found {len(repos)} repositories"
        return GitObservation(success=True, message=message, output=output, repos=repos)

    def _clone_repo(self, action: GitAction) -> GitObservation:
        repo = self._need_store().repos.get(action.repo_name)
        if repo is None:
            known = ", ".join(self._need_store().repos)
            raise _Refused(f"no repository {action.repo_name!r}; available: {known}")
        target = _relative(action.target_dir or repo.name, "target_dir")
        result = self._run(
            ["bash", "-c", _CLONE, "bash", origin_of(repo.name), repo.path, self._dir(target)]
        )
        if not result.success:
            return self._failed(f"Failed to clone repository: {repo.name}", result)
        if target not in self._state.cloned:
            self._state.cloned.append(target)
        self._focus = target
        commit = result.output.strip().splitlines()[-1]
        return GitObservation(
            success=True,
            message=f"Successfully cloned {repo.name}",
            output=f"Cloned to: ~/{target}\nCommit: {commit}",
        )

    def _execute_git_command(self, action: GitAction) -> GitObservation:
        try:
            args = shlex.split(action.command)
        except ValueError as exc:
            raise _Refused(f"cannot read the command {action.command!r}: {exc}") from None
        if args[:1] == ["git"]:
            args = args[1:]
        if not args:
            raise _Refused("give git's arguments in command, e.g. command='status'")
        where = self._working_dir(action)
        result = self._run(["git", *args], cwd=where)
        self._focus_on(action.working_dir)
        if not result.success:
            return self._failed("Git command failed", result)
        return GitObservation(success=True, message="Git command succeeded", output=result.output)

    def _read_file(self, action: GitAction) -> GitObservation:
        path = _relative(_need(action.path, "path"), "path")
        result = self._run(["cat", "--", path], cwd=self._working_dir(action))
        if not result.success:
            return self._failed(f"Cannot read {path}", result)
        return GitObservation(success=True, message=f"Read {path}", output=result.output)

    def _write_file(self, action: GitAction) -> GitObservation:
        path = _relative(_need(action.path, "path"), "path")
        full = posixpath.join(self._working_dir(action), path)
        _, stderr, code = self._need_shell().python(
            _WRITE.format(args=json.dumps([full, action.content]))
        )
        if code != 0:
            why = (stderr.strip().splitlines() or ["the write failed"])[-1]
            return GitObservation(success=False, message=f"Cannot write {path}", error=why)
        self._focus_on(action.working_dir)
        size = len(action.content.encode("utf-8"))
        return GitObservation(success=True, message=f"Wrote {path} ({size} bytes)")

    def _run_command(self, action: GitAction) -> GitObservation:
        command = _need(action.command, "command")
        result = self._run(["bash", "-c", command], cwd=self._working_dir(action))
        self._focus_on(action.working_dir)
        if not result.success:
            return self._failed("Command failed", result)
        return GitObservation(success=True, message="Command succeeded", output=result.output)

    def _submit(self, action: GitAction) -> GitObservation:
        if self._task is None:
            return GitObservation(
                success=True, message="Episode finished (no task to check).", done=True
            )
        repo = self._need_store().repos[self._task.repo]
        verdict = self._task.check(
            self._need_shell(), repo, self._dir(self._task.repo), self._env()
        )
        return GitObservation(
            success=True,
            message=verdict.reason,
            output=f"Task {self._task.name}: reward {verdict.score}",
            reward=verdict.score,
            done=True,
            metadata={"verdict": {"reward": verdict.score, "reason": verdict.reason}},
        )

    # -- helpers ----------------------------------------------------------------------------

    def _start_task(self, task: Task) -> GitObservation:
        repo = self._need_store().repos[task.repo]
        self._state.step_count = 0
        obs = self._clone_repo(GitAction(action_type="clone_repo", repo_name=task.repo))
        if not obs.success:
            return GitObservation(
                success=False,
                message=f"Failed to reset task '{task.name}'",
                error=obs.error,
                reward=0.0,
            )
        return GitObservation(
            success=True,
            message=f"Initialized task '{task.name}' (repo: {repo.name}@{repo.head[:7]})",
            output=f"Workspace: ~/{task.repo}\nCommit: {repo.head[:7]}\nTask: {task.name}\n\n"
            + task.instruction,
            reward=0.0,
        )

    def _failed(self, message: str, result: ShellResult) -> GitObservation:
        error = result.text(self._limits.timeout_s)
        return GitObservation(success=False, message=message, output=result.output, error=error)

    def _run(self, argv: list[str], cwd: str | None = None) -> ShellResult:
        return self._need_shell().run(argv, cwd=cwd, env=self._env())

    def _env(self) -> dict[str, str]:
        when = f"@{AGENT_EPOCH + 60 * (self._state.step_count + 1)} +0000"
        return {
            "GIT_CONFIG_GLOBAL": self._need_store().gitconfig,
            "GIT_AUTHOR_DATE": when,
            "GIT_COMMITTER_DATE": when,
            "GIT_EDITOR": "true",
            "GIT_PAGER": "cat",
            "GIT_TERMINAL_PROMPT": "0",
            "PAGER": "cat",
            "PYTHONDONTWRITEBYTECODE": "1",
            "TERM": "dumb",
        }

    def _working_dir(self, action: GitAction) -> str:
        return self._dir(_relative(action.working_dir or ".", "working_dir"))

    def _dir(self, relative: str | None) -> str:
        shell = self._need_shell()
        if shell.home is None:  # the sandbox starts on its first command
            shell.run(["true"])
        home = shell.home or ""
        return home if relative in (None, "", ".") else posixpath.join(home, relative)

    def _focus_on(self, working_dir: str) -> None:
        rel = posixpath.normpath(working_dir.removeprefix("~/")) if working_dir else ""
        top = rel.split("/", 1)[0]
        if top in self._state.cloned:
            self._focus = top

    def _need_shell(self) -> Shell:
        if self._shell is None:
            self._shell = Shell(self._limits)
        return self._shell

    def _need_store(self) -> RepoStore:
        if self._store is None:
            self._store = shared_store()
        return self._store

    def _close_shell(self) -> None:
        shell, self._shell = self._shell, None
        if shell is not None:
            shell.close()


def _relative(path: str, name: str) -> str:
    """``path`` as a clean path inside ``~`` (``~/x``, ``./x`` and ``x/`` read as ``x``)."""
    cleaned = posixpath.normpath(path.strip().removeprefix("~/") or ".")
    if cleaned == "~":
        cleaned = "."
    if posixpath.isabs(cleaned) or cleaned == ".." or cleaned.startswith("../"):
        raise _Refused(f"{name} must be a path inside ~ (the workspace), got {path!r}")
    return cleaned


def _need(value: str, name: str) -> str:
    if not value.strip():
        raise _Refused(f"this action needs {name}")
    return value


def _git(command: str, where: dict[str, str]) -> dict[str, str]:
    return {"action_type": "execute_git_command", "command": command, **where}


def _label(action: GitAction) -> str:
    kind = action.action_type
    if kind == "execute_git_command":
        return f"git {action.command.removeprefix('git ').strip()}"
    if kind == "run_command":
        return f"$ {action.command}"
    if kind == "clone_repo":
        return f"clone {action.repo_name}"
    if kind in ("read_file", "write_file"):
        return f"{kind.replace('_', ' ')} {action.path}"
    return kind.replace("_", " ")
