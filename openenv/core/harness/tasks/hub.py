"""Harbor task datasets on the Hugging Face Hub: listed, surveyed, downloaded to the cache.

A Hub dataset holds its tasks in Harbor's layout, ``tasks/<name>/`` or ``tasks/<group>/<name>/``.
Before anything is downloaded the repo's file list (with sizes) is read and checked: too many
tasks, or too many bytes, refuse the dataset; a task with a file over its limit, or without an
instruction or verifier, is left out and reported. The rest is downloaded with
``snapshot_download`` into ``$HF_HOME/openenv/harbor/datasets--org--name/snapshots/<commit>``
as plain files (a sandbox copies a task's folder; the Hub cache's symlinks would not survive
that); a commit read before is kept (a server may still serve it) until :func:`remove_cached`
deletes the dataset's copies. The token is the usual one (``HF_TOKEN`` or the machine's login); with
``HF_HUB_OFFLINE=1``, or when the Hub cannot be reached, a dataset downloaded before is read
from the cache.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from openenv.core.harness.tasks import TaskError
from openenv.core.harness.tasks.datasets import (
    Progress,
    SplitSurvey,
    TaskProblem,
    TaskSplit,
    read_folder,
)
from openenv.core.harness.tasks.hub_listing import (
    HubRef,
    Listing,
    Plan,
    Unreachable,
    from_hub_error,
    glob_escape,
    list_tasks,
    plan,
    progress_bar,
)

TAG = "harbor"
MAX_LISTED = 100
MAX_SEARCH_CHARS = 100
MARKER = ".openenv-harbor.json"
_REPO = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")
_REVISION = re.compile(r"[\w.][\w./-]{0,199}")
_SHA = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class HubDataset:
    """A dataset tagged ``harbor``: its task count and size from its file list (nothing is
    downloaded); ``problem`` says why it cannot be added ("" when it can)."""

    id: str
    tasks: int
    size_bytes: int
    problem: str = ""
    likes: int = 0
    downloads: int = 0


def parse_hub_spec(spec: str) -> HubRef | None:
    """The Hub dataset a spec names (``org/name[@rev]``, ``hf://datasets/org/name[@rev]``), or
    None for a local path (an existing one is always local)."""
    text, explicit = spec.strip(), spec.strip().startswith("hf://")
    if explicit:
        if not text.startswith("hf://datasets/"):
            raise TaskError(f"{spec}: tasks are read from Hub datasets (hf://datasets/org/name)")
        text = text.removeprefix("hf://datasets/").rstrip("/")
    elif Path(text).expanduser().exists():
        return None
    repo, at, revision = text.partition("@")
    if not _REPO.fullmatch(repo) or ".." in repo:
        if explicit:
            raise TaskError(f"{spec}: not a Hub dataset (hf://datasets/org/name[@revision])")
        return None
    if at and (not _REVISION.fullmatch(revision) or ".." in revision):
        raise TaskError(f"{spec}: {revision!r} is not a revision (a branch, tag or commit)")
    return HubRef(repo, revision or None)


def cache_root() -> Path:
    """Where Hub datasets are kept: ``$HF_HOME/openenv/harbor``."""
    from huggingface_hub import constants

    return Path(constants.HF_HOME) / "openenv" / "harbor"


def _repo_dir(ref: HubRef) -> Path:
    return cache_root() / ("datasets--" + ref.repo_id.replace("/", "--"))


def _ref_file(ref: HubRef) -> Path:
    return _repo_dir(ref) / "refs" / quote(ref.revision or "main", safe="")


def load_hub_split(ref: HubRef, name: str, progress: Progress | None = None) -> TaskSplit:
    """Download (within the bounds) and read a Hub dataset; offline, read it from the cache."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return _from_cache(ref, name, "offline (HF_HUB_OFFLINE=1)")
    try:
        listing = list_tasks(ref)
    except Unreachable as exc:
        return _from_cache(ref, name, str(exc))
    checked = plan(listing)
    folder = _download(listing, checked, progress)
    _write_atomic(folder / MARKER, json.dumps({"problems": [asdict(p) for p in checked.problems]}))
    _write_atomic(_ref_file(ref), listing.sha)
    return _read(folder, name, listing.sha, checked.problems)


def _download(listing: Listing, checked: Plan, progress: Progress | None) -> Path:
    from huggingface_hub import snapshot_download

    folder = _repo_dir(listing.ref) / "snapshots" / listing.sha
    left_out = [glob_escape(f"tasks/{p.task}") + "/*" for p in checked.problems]  # one a task
    owned = tuple(f"tasks/{p.task}/" for p in checked.problems)
    stray = [
        glob_escape(p) for p in listing.files if p not in checked.files and not p.startswith(owned)
    ]
    try:
        snapshot_download(
            listing.ref.repo_id,
            repo_type="dataset",
            revision=listing.sha,
            local_dir=folder,
            allow_patterns=["tasks/*"],
            ignore_patterns=[*left_out, *stray] or None,
            tqdm_class=progress_bar(progress) if progress else None,
        )
    except Exception as exc:
        raise from_hub_error(exc, listing.ref) from exc
    return folder


def _read(folder: Path, name: str, sha: str, problems: list[TaskProblem]) -> TaskSplit:
    try:
        split = read_folder(folder, name=name, source="hub", tasks_only=True)
    except TaskError:
        if not problems:
            raise
        split = TaskSplit(name, "hub", [], root=folder)  # every task was left out: say why
    split.problems = sorted([*problems, *split.problems], key=lambda p: p.task)
    split.revision = sha
    return split


def _from_cache(ref: HubRef, name: str, why: str) -> TaskSplit:
    sha = ref.revision if ref.revision and _SHA.fullmatch(ref.revision) else None
    if sha is None and _ref_file(ref).is_file():
        sha = _ref_file(ref).read_text().strip()
    folder = _repo_dir(ref) / "snapshots" / (sha or "-")
    if not sha or not (folder / MARKER).is_file():
        raise TaskError(f"{ref.label}: {why}, and not downloaded before (cache: {cache_root()})")
    saved = json.loads((folder / MARKER).read_text())
    split = _read(folder, name, sha, [TaskProblem(**p) for p in saved["problems"]])
    split.note = f"read from the cache ({why})"
    return split


def remove_cached(spec: str) -> bool:
    """Delete a Hub dataset's downloaded copy (every revision); False when there was none."""
    ref = parse_hub_spec(spec)
    if ref is None:
        raise TaskError(f"{spec}: not a Hub dataset (org/name): only those are cached")
    folder = _repo_dir(ref)
    if not folder.exists():
        return False
    shutil.rmtree(folder)
    return True


def survey_hub(ref: HubRef, name: str) -> SplitSurvey:
    """Task count, size and problems from the file list alone (read-only, nothing downloaded);
    offline or unreachable, from the cache."""
    from huggingface_hub import constants

    why = "offline (HF_HUB_OFFLINE=1)" if constants.HF_HUB_OFFLINE else ""
    if not why:
        try:
            listing = list_tasks(ref)
        except Unreachable as exc:
            why = str(exc)
        else:
            checked = plan(listing)
            return SplitSurvey(
                name, "hub", len(checked.tasks), checked.problems, checked.size_bytes, listing.sha
            )
    split = _from_cache(ref, name, why)
    return SplitSurvey(
        name, "hub", len(split.tasks), split.problems, None, split.revision, split.note
    )


def list_hub_datasets(search: str = "", limit: int = 50) -> list[HubDataset]:
    """Public datasets tagged ``harbor`` (matching ``search``), each with its task count and
    size from its file list; one that is not in the ``tasks/`` layout says so."""
    from huggingface_hub import HfApi

    if len(search) > MAX_SEARCH_CHARS:
        raise TaskError(f"a search is at most {MAX_SEARCH_CHARS} characters")
    limit = max(1, min(int(limit), MAX_LISTED))
    try:
        found = list(HfApi().list_datasets(filter=TAG, search=search or None, limit=limit))
    except Exception as exc:
        raise from_hub_error(exc, None) from exc
    public = [d for d in found if not d.private]
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(_describe, public))


def _describe(info: Any) -> HubDataset:
    extra = {"likes": info.likes or 0, "downloads": info.downloads or 0}
    try:
        checked = plan(list_tasks(HubRef(info.id, None)))
    except (TaskError, Unreachable) as exc:
        return HubDataset(info.id, 0, 0, str(exc), **extra)
    count = len(checked.tasks) + len(checked.problems)  # every task.toml under tasks/
    return HubDataset(info.id, count, checked.size_bytes, "", **extra)


def _write_atomic(path: Path, text: str) -> None:
    """Written whole or not at all (a reader in another process never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


__all__ = [
    "HubDataset",
    "HubRef",
    "cache_root",
    "list_hub_datasets",
    "load_hub_split",
    "parse_hub_spec",
    "remove_cached",
    "survey_hub",
]
