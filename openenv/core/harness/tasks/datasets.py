"""Task splits: the datasets a command is given, each read into tasks (and the ones that failed).

Every command that takes ``--dataset`` resolves it here. A spec is one of:

* a local folder: one task (holding task.toml), a folder of tasks, or Harbor's dataset layout
  ``tasks/<name>/`` (flat) or ``tasks/<group>/<name>/`` (grouped);
* a Hugging Face Hub dataset ``org/name``, ``org/name@revision`` or ``hf://datasets/org/name``,
  in the ``tasks/`` layout (downloaded to the cache, see :mod:`.hub`).

``load_splits("org/train,org/eval")`` reads a comma list: each dataset is one split named by its
spec. A split with a broken task still serves the others and lists which failed and why
(:class:`TaskProblem`); a spec that is no dataset at all is a :class:`TaskError` saying what was
found instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from openenv.core.harness.tasks import MAX_TASKS, HarborTask, TaskError, load_task

MAX_SPLITS = 32
MAX_SPEC_CHARS = 300
Progress = Callable[[int, int], None]  # (files done, files in all) while a Hub dataset downloads


@dataclass(frozen=True)
class TaskProblem:
    """A task of a split that could not be read: its name in the split, and why."""

    task: str
    reason: str


@dataclass
class TaskSplit:
    """One dataset given to a command: the tasks read from it, and the tasks that failed."""

    name: str  # the spec as given: a path, or ``org/name[@revision]``
    source: Literal["local", "hub"]
    tasks: list[HarborTask]
    problems: list[TaskProblem] = field(default_factory=list)
    root: Path | None = None  # the folder read (for a Hub dataset, its copy in the cache)
    revision: str | None = None  # the Hub commit read
    note: str = ""  # e.g. read from the cache because the Hub was unreachable

    def task(self, name: str) -> HarborTask:
        """The task called ``name``; a :class:`TaskError` listing a few names when none is."""
        for task in self.tasks:
            if task.name == name:
                return task
        known = ", ".join(t.name for t in self.tasks[:5]) or "none"
        raise TaskError(f"{self.name}: no task named {name!r} (tasks: {known}...)")

    def summary(self) -> dict[str, Any]:
        """What a listing shows of the split (no task contents)."""
        return {
            "name": self.name,
            "source": self.source,
            "revision": self.revision,
            "tasks": len(self.tasks),
            "problems": [dataclasses.asdict(p) for p in self.problems],
            "note": self.note,
        }


@dataclass
class SplitSurvey:
    """What ``harbor info`` shows of a dataset, read without downloading it."""

    name: str
    source: Literal["local", "hub"]
    tasks: int
    problems: list[TaskProblem] = field(default_factory=list)
    size_bytes: int | None = None
    revision: str | None = None
    note: str = ""


def survey_split(spec: str) -> SplitSurvey:
    """A dataset's task count and problems, read-only: a local folder is read; a Hub dataset's
    file list is (nothing downloaded; offline, the cached copy)."""
    from openenv.core.harness.tasks import hub

    ref = hub.parse_hub_spec(spec.strip())
    if ref is not None:
        return hub.survey_hub(ref, spec.strip())
    split = load_split(spec)
    return SplitSurvey(split.name, "local", len(split.tasks), split.problems)


def task_folders(toml_paths: Iterable[str]) -> list[str]:
    """The task folders (``<name>`` or ``<group>/<name>``) among the paths of task.toml files
    relative to a dataset's task folder; a folder that is a task is not also a group."""
    found = {p.rsplit("/", 1)[0] for p in toml_paths if p.count("/") in (1, 2)}
    return sorted(f for f in found if "/" not in f or f.split("/", 1)[0] not in found)


def split_specs(specs: str | Iterable[str]) -> list[str]:
    """The specs in a comma list (or several), blanks dropped, each given once, bounded."""
    items = [specs] if isinstance(specs, str) else list(specs)
    out: list[str] = []
    for spec in (s.strip() for item in items for s in item.split(",")):
        if not spec:
            continue
        if len(spec) > MAX_SPEC_CHARS:
            raise TaskError(f"{spec[:40]}...: a dataset spec is at most {MAX_SPEC_CHARS} chars")
        if spec in out:
            raise TaskError(f"{spec}: dataset given twice")
        out.append(spec)
    if not out:
        raise TaskError("no dataset given (a folder, or a Hub dataset org/name)")
    if len(out) > MAX_SPLITS:
        raise TaskError(f"{len(out)} datasets given, at most {MAX_SPLITS}")
    return out


def load_splits(specs: str | Iterable[str], progress: Progress | None = None) -> list[TaskSplit]:
    """Each dataset of a comma list (``"org/train,org/eval"``, or a list of them) as a split."""
    return [load_split(spec, progress) for spec in split_specs(specs)]


def load_split(spec: str, progress: Progress | None = None) -> TaskSplit:
    """The split a spec names: a local task or dataset folder, or a Hub dataset (downloaded to
    the cache with bounds; offline, read from the cache)."""
    from openenv.core.harness.tasks import hub

    spec = spec.strip()
    ref = hub.parse_hub_spec(spec)
    if ref is not None:
        return hub.load_hub_split(ref, spec, progress)
    root = Path(spec).expanduser()
    if not root.exists():
        raise TaskError(
            f"{spec}: no such task or dataset folder, and not a Hub dataset id (org/name)"
        )
    return read_folder(root, name=spec)


def read_folder(
    root: Path, name: str, source: Literal["local", "hub"] = "local", tasks_only: bool = False
) -> TaskSplit:
    """Every task in a folder's layout, each read by :func:`load_task`; the ones that fail are
    the split's problems. ``tasks_only``: only Harbor's ``tasks/`` layout (a Hub dataset)."""
    if not root.is_dir():
        raise TaskError(f"{root}: a dataset is a folder (a task, or tasks/<name>/)")
    if (root / "task.toml").is_file() and not tasks_only:
        return TaskSplit(name, source, [load_task(root)], root=root)
    base = root / "tasks" if (root / "tasks").is_dir() or tasks_only else root
    folders = task_folders(_toml_paths(base))
    if not folders:
        raise TaskError(_not_a_layout(root, tasks_only))
    split = TaskSplit(name, source, [], root=root)
    for folder in folders:
        try:
            task = load_task(base / folder)
        except TaskError as exc:
            reason = str(exc).replace(f"{base}/", "")  # the task is named: paths within it
            split.problems.append(TaskProblem(folder, reason))
            continue
        split.tasks.append(dataclasses.replace(task, name=folder))
    return split


def _toml_paths(base: Path) -> list[str]:
    """task.toml files one and two folders below ``base``, relative to it (bounded)."""
    paths: list[str] = []
    if not base.is_dir():
        return paths
    for child in sorted(base.iterdir()):
        if not child.is_dir() or child.is_symlink():
            continue
        if (child / "task.toml").is_file():
            paths.append(f"{child.name}/task.toml")
        else:
            paths.extend(
                f"{child.name}/{g.name}/task.toml"
                for g in sorted(child.iterdir())
                if g.is_dir() and not g.is_symlink() and (g / "task.toml").is_file()
            )
        if len(paths) > MAX_TASKS:
            raise TaskError(f"{base}: more than {MAX_TASKS} tasks")
    return paths


def _not_a_layout(root: Path, tasks_only: bool) -> str:
    seen = sorted(p.name + ("/" if p.is_dir() else "") for p in root.iterdir())
    shown = ", ".join(seen[:8]) + (", ..." if len(seen) > 8 else "") if seen else "nothing"
    where = "tasks/<name>/ or tasks/<group>/<name>/"
    if not tasks_only:
        where = f"the folder itself, <name>/, {where}"
    return f"{root}: not a Harbor dataset: no task.toml in {where} (found: {shown})"


__all__ = [
    "MAX_SPLITS",
    "Progress",
    "SplitSurvey",
    "TaskProblem",
    "TaskSplit",
    "load_split",
    "load_splits",
    "read_folder",
    "split_specs",
    "survey_split",
    "task_folders",
]
