"""Harbor's own task model (the ``harbor`` package from PyPI) as a second reader of our tasks.

We read tasks with our own code (:mod:`openenv.core.harness.tasks`); the ``harbor`` package is
what Harbor itself reads them with. It needs Python >= 3.12 and pulls in heavy dependencies
(litellm, supabase, fastmcp...), while openenv runs on 3.11: so it lives in a virtualenv of its
own under the harness home (``<home>/harbor``), made with a Python >= 3.12 found on this machine
and installed by ``openenv harbor install harbor`` (pinned :data:`PACKAGE`).

``check_tasks(tasks)`` hands the task folders to that interpreter (:mod:`.harbor_reader`, at most
:data:`MAX_CHECKED_TASKS` per call, within :data:`CHECK_TIMEOUT_S`), and compares what Harbor read
with what we read: a task Harbor refuses, or reads with another agent or verifier timeout, docker
image, verifier env or instruction, is a difference (a :class:`TaskProblem` carrying Harbor's own
message). Both ways: ``check_split(split)`` also hands Harbor the split's tasks we refused
(its problems); one Harbor reads is a difference too (with our reason), one it refuses as well
is counted as refused by both. Without the package nothing is checked and
:class:`HarborCheck` says why; everything else works as without it.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openenv.core.harness.harnesses.base import HarnessUnavailable, harness_home
from openenv.core.harness.tasks import HarborTask
from openenv.core.harness.tasks.datasets import TaskProblem, TaskSplit

PACKAGE = "harbor==0.26.0"
MIN_PYTHON = (3, 12)
MAX_CHECKED_TASKS = 500
CHECK_TIMEOUT_S = 180.0
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
INSTALL_TIMEOUT_S = 1800.0
READER = Path(__file__).with_name("harbor_reader.py")
NOT_INSTALLED = "harbor not installed: `openenv harbor install harbor`"
_VERSION_PROBE = "import sys; print(sys.executable if sys.version_info[:2] >= {min} else '')"


class HarborCheckError(RuntimeError):
    """Harbor's interpreter could not be run on the tasks (it failed, timed out, said nonsense)."""


@dataclass
class HarborCheck:
    """What Harbor's task model made of some tasks: the ones that agree, and the differences."""

    version: str | None = None  # the harbor package's version; None when nothing was checked
    agree: list[str] = field(default_factory=list)
    differ: list[TaskProblem] = field(default_factory=list)
    unchecked: int = 0  # tasks over the per-call limit
    skipped: str = ""  # why nothing was checked
    both_refuse: list[str] = field(default_factory=list)  # tasks we and Harbor both refuse

    def line(self) -> str:
        """``checked with harbor 0.26.0: N tasks agree, M differ`` (or why it was not)."""
        if self.version is None:
            return self.skipped or NOT_INSTALLED
        over = f" ({self.unchecked} over the limit of {MAX_CHECKED_TASKS}, unchecked)"
        tail = over if self.unchecked else ""
        both = f", {len(self.both_refuse)} refused by both" if self.both_refuse else ""
        return (
            f"checked with harbor {self.version}: {len(self.agree)} tasks agree, "
            f"{len(self.differ)} differ{both}{tail}"
        )


def harbor_venv(home: Path | None = None) -> Path:
    """The virtualenv the harbor package lives in."""
    return (home or harness_home()) / "harbor"


def harbor_python(home: Path | None = None) -> Path:
    """Its interpreter."""
    return harbor_venv(home) / "bin" / "python"


def harbor_problem(home: Path | None = None) -> str | None:
    """Why Harbor's task model cannot be used here (None when it can)."""
    return None if harbor_python(home).exists() else NOT_INSTALLED


def _candidates() -> list[str]:
    """Interpreters that may be >= 3.12: $OPENENV_HARBOR_PYTHON, pythonX.Y on PATH, pyenv's and
    uv's installs, then ``python3``."""
    found = [os.environ.get("OPENENV_HARBOR_PYTHON", "")]
    found += [shutil.which(f"python3.{minor}") or "" for minor in (12, 13, 14)]
    roots = [os.environ.get("PYENV_ROOT", ""), str(Path.home() / ".pyenv")]
    for root in filter(None, roots):
        found += sorted(glob.glob(f"{root}/versions/3.1[2-9]*/bin/python3"))
    uv = Path.home() / ".local/share/uv/python"
    found += sorted(glob.glob(f"{uv}/cpython-3.1[2-9]*/bin/python3"))
    found.append(shutil.which("python3") or "")
    return list(dict.fromkeys(c for c in found if c))


def find_python(minimum: tuple[int, int] = MIN_PYTHON) -> str:
    """The first interpreter found that runs and is at least ``minimum``; its real path."""
    probe = _VERSION_PROBE.format(min=minimum)
    for candidate in _candidates():
        try:
            done = subprocess.run(
                [candidate, "-c", probe], capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        path = done.stdout.strip()
        if done.returncode == 0 and path:
            return path
    wanted = ".".join(map(str, minimum))
    raise HarnessUnavailable(
        f"the harbor package needs Python >= {wanted} and none was found (tried "
        f"$OPENENV_HARBOR_PYTHON, python3.12-3.14 on PATH, pyenv's and uv's installs): install "
        f"one, or set OPENENV_HARBOR_PYTHON to it"
    )


def install_harbor(home: Path | None = None) -> Path:
    """Make ``<home>/harbor`` with a Python >= 3.12 and install :data:`PACKAGE` from PyPI;
    idempotent (pip upgrades nothing that is there). Returns the virtualenv."""
    venv = harbor_venv(home)
    old = os.umask(0o022)
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
        if not harbor_python(home).exists():
            _run([find_python(), "-m", "venv", str(venv)])
        _run([str(harbor_python(home)), "-m", "pip", "install", "--quiet", PACKAGE])
    finally:
        os.umask(old)
    return venv


def _run(argv: list[str]) -> None:
    try:
        subprocess.run(argv, check=True, timeout=INSTALL_TIMEOUT_S)
    except subprocess.CalledProcessError as exc:
        raise HarnessUnavailable(f"`{' '.join(argv)}` failed (exit {exc.returncode})") from None
    except subprocess.TimeoutExpired:
        raise HarnessUnavailable(f"`{' '.join(argv)}` took over {INSTALL_TIMEOUT_S:g} s") from None


def check_tasks(
    tasks: Sequence[HarborTask],
    *,
    refused: Sequence[tuple[TaskProblem, Path]] = (),
    home: Path | None = None,
    limit: int = MAX_CHECKED_TASKS,
    timeout_s: float = CHECK_TIMEOUT_S,
) -> HarborCheck:
    """Read the first ``limit`` tasks with Harbor's task model and compare, then (within the
    same limit) the folders of tasks we ``refused`` (each problem with its folder); a
    :class:`HarborCheck` that says why when the package is not installed.
    :class:`HarborCheckError` when its interpreter fails or times out."""
    problem = harbor_problem(home)
    if problem:
        return HarborCheck(skipped=problem)
    limit = max(0, min(limit, MAX_CHECKED_TASKS))
    checked = list(tasks[:limit])
    others = list(refused[: limit - len(checked)])
    dirs = [str(t.path) for t in checked] + [str(folder) for _, folder in others]
    answer = _read_with_harbor(dirs, home, timeout_s)
    unchecked = len(tasks) + len(refused) - len(dirs)
    result = HarborCheck(version=str(answer.get("version")), unchecked=unchecked)
    views = answer.get("tasks")
    if not isinstance(views, list) or len(views) != len(dirs):
        raise HarborCheckError(f"harbor's reader answered {len(views or [])} of {len(dirs)}")
    for task, view in zip(checked, views, strict=False):
        reason = difference(task, view, result.version or "")
        if reason:
            result.differ.append(TaskProblem(task.name, reason))
        else:
            result.agree.append(task.name)
    for (ours, _), view in zip(others, views[len(checked) :], strict=True):
        if isinstance(view, dict) and view.get("ok"):
            why = f"harbor {result.version} reads it, we refuse it: {ours.reason}"
            result.differ.append(TaskProblem(ours.task, why))
        else:
            result.both_refuse.append(ours.task)
    return result


def check_split(split: TaskSplit, **options: Any) -> HarborCheck:
    """:func:`check_tasks` on a dataset's tasks and on the ones we refused in it (its
    problems whose folder is there): Harbor's model checked both ways."""
    refused: list[tuple[TaskProblem, Path]] = []
    if split.root is not None:
        base = split.root / "tasks" if (split.root / "tasks").is_dir() else split.root
        for problem in split.problems:
            folder = base / problem.task
            if folder.is_dir() and not folder.is_symlink() and base in folder.resolve().parents:
                refused.append((problem, folder))
    return check_tasks(split.tasks, refused=refused, **options)


def _read_with_harbor(dirs: list[str], home: Path | None, timeout_s: float) -> dict[str, Any]:
    argv = [str(harbor_python(home)), "-I", str(READER)]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
    env["HARBOR_TELEMETRY"] = "0"
    try:
        done = subprocess.run(
            argv,
            input=json.dumps({"dirs": dirs}),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=env,
        )
    except subprocess.TimeoutExpired:
        raise HarborCheckError(f"harbor's reader took over {timeout_s:g} s") from None
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-3:]
        why = " | ".join(tail)[:1000]
        raise HarborCheckError(f"harbor's reader failed (exit {done.returncode}): {why}")
    if len(done.stdout) > MAX_OUTPUT_BYTES:
        raise HarborCheckError(f"harbor's reader wrote over {MAX_OUTPUT_BYTES} bytes")
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise HarborCheckError(f"harbor's reader wrote no JSON ({exc.msg})") from None
    if not isinstance(answer, dict):
        raise HarborCheckError("harbor's reader wrote no JSON object")
    return answer


def difference(task: HarborTask, view: dict[str, Any], version: str) -> str:
    """How Harbor's reading of ``task`` differs from ours (``""``: it agrees)."""
    who = f"harbor {version}"
    if not view.get("ok"):
        return f"{who} refuses it: {view.get('error', 'no reason given')}"
    ours: dict[str, Any] = {
        "agent.timeout_sec": task.agent_timeout_s,
        "verifier.timeout_sec": task.verifier_timeout_s,
        "environment.docker_image": task.docker_image,
        "verifier.env": task.verifier_env,
    }
    theirs: dict[str, Any] = {
        "agent.timeout_sec": view.get("agent_timeout_s"),
        "verifier.timeout_sec": view.get("verifier_timeout_s"),
        "environment.docker_image": view.get("docker_image"),
        "verifier.env": view.get("verifier_env"),
    }
    if theirs["agent.timeout_sec"] is None:  # unset: Harbor leaves it to the agent, we default
        theirs["agent.timeout_sec"] = ours["agent.timeout_sec"]
        if "timeout_sec" in task.config.get("agent", {}):
            theirs["agent.timeout_sec"] = None
    found = [
        f"{key}: {who} reads {theirs[key]!r}, we read {ours[key]!r}"
        for key in ours
        if theirs[key] != ours[key]
    ]
    sha = hashlib.sha256(task.instruction.encode()).hexdigest()
    if view.get("instruction_sha256") != sha:
        found.append(
            f"instruction.md: {who} tells the agent other text than we do (Harbor drops "
            "leading canary comment lines, we do not)"
        )
    return "; ".join(found)


__all__ = [
    "CHECK_TIMEOUT_S",
    "MAX_CHECKED_TASKS",
    "NOT_INSTALLED",
    "PACKAGE",
    "HarborCheck",
    "HarborCheckError",
    "check_split",
    "check_tasks",
    "difference",
    "find_python",
    "harbor_problem",
    "harbor_python",
    "harbor_venv",
    "install_harbor",
]
