"""A Hub dataset's file list, checked before anything is downloaded; the Hub's errors said plainly.

:func:`list_tasks` reads the files under ``tasks/`` with their sizes (one commit, so the download
gets what was checked); :func:`plan` decides which tasks can be downloaded and why the others
cannot, and refuses a dataset with too many tasks or bytes; :func:`from_hub_error` turns what
``huggingface_hub`` raises into a :class:`TaskError` saying which it was (no such dataset,
private without a token, a refused token, the Hub unreachable).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from openenv.core.harness.tasks import (
    MAX_INSTRUCTION_BYTES,
    MAX_TASKS,
    MAX_TOML_BYTES,
    MAX_TREE_BYTES,
    MAX_TREE_FILES,
    TaskError,
)
from openenv.core.harness.tasks.datasets import Progress, TaskProblem, task_folders

MAX_HUB_BYTES = 2 * 1024**3  # the tasks of one dataset, all files together
MAX_LISTED_FILES = 200_000
PARTS = ("environment", "tests", "solution")
LOGIN = "set HF_TOKEN or run `hf auth login`"


@dataclass(frozen=True)
class HubRef:
    """A Hub dataset and the revision asked for (None: the default branch)."""

    repo_id: str
    revision: str | None = None

    @property
    def label(self) -> str:
        return self.repo_id + (f"@{self.revision}" if self.revision else "")


@dataclass(frozen=True)
class Listing:
    """The files under ``tasks/`` of one commit, by repo path, with sizes; and the top level."""

    ref: HubRef
    sha: str
    files: dict[str, int]
    top: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """What to download: every file of the tasks that can be read; and the tasks left out."""

    files: dict[str, int]
    tasks: list[str]
    problems: list[TaskProblem]

    @property
    def size_bytes(self) -> int:
        return sum(self.files.values())


class Unreachable(Exception):
    """The Hub could not be reached (network down, or offline): the cache may still serve."""


def list_tasks(ref: HubRef) -> Listing:
    """The dataset's commit and its files under ``tasks/`` (bounded), from the Hub's API."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import RemoteEntryNotFoundError

    api = HfApi()
    try:
        sha = str(api.dataset_info(ref.repo_id, revision=ref.revision, expand=["sha"]).sha)
        files: dict[str, int] = {}
        try:
            tree = api.list_repo_tree(
                ref.repo_id, "tasks", recursive=True, revision=sha, repo_type="dataset"
            )
            for entry in tree:
                if hasattr(entry, "size"):  # a file (folders have no size)
                    files[entry.path] = int(entry.size)
                if len(files) > MAX_LISTED_FILES:
                    raise TaskError(f"{ref.label}: more than {MAX_LISTED_FILES} files in tasks/")
        except RemoteEntryNotFoundError:
            pass  # no tasks/ folder: plan() says what there is instead
        top: list[str] = []
        if not files:
            tree = api.list_repo_tree(ref.repo_id, revision=sha, repo_type="dataset")
            top = sorted(e.path for e in itertools.islice(tree, 100))
    except TaskError:
        raise
    except Exception as exc:
        if _is_network(exc):
            why = f"the Hub at {api.endpoint} could not be reached ({_kind(exc)})"
            raise Unreachable(why) from exc
        raise from_hub_error(exc, ref) from exc
    return Listing(ref, sha, files, tuple(top))


def plan(listing: Listing) -> Plan:
    """The files to download (every file of each task that can be read), and the tasks left
    out with the reason; a dataset that is not a Harbor layout, or too big, is refused."""
    label, files = listing.ref.label, listing.files
    tomls = [p.removeprefix("tasks/") for p in files if p.endswith("/task.toml")]
    folders = task_folders(tomls)
    if not folders:
        raise TaskError(_not_a_layout(listing))
    if len(folders) > MAX_TASKS:
        raise TaskError(f"{label}: {len(folders)} tasks, more than {MAX_TASKS}")
    owned: dict[str, dict[str, int]] = {f: {} for f in folders}
    for path, size in files.items():
        parts = path.removeprefix("tasks/").split("/")
        owner = next((o for o in ("/".join(parts[:2]), parts[0]) if o in owned), None)
        if owner is not None and path != f"tasks/{owner}":
            owned[owner][path.removeprefix(f"tasks/{owner}/")] = size
    result = Plan({}, [], [])
    for folder, task_files in owned.items():
        why = check_task_files(task_files)
        if why:
            result.problems.append(TaskProblem(folder, why))
            continue
        result.tasks.append(folder)
        result.files.update({f"tasks/{folder}/{p}": s for p, s in task_files.items()})
    if result.size_bytes > MAX_HUB_BYTES:
        raise TaskError(
            f"{label}: {result.size_bytes} bytes of tasks, over the limit of {MAX_HUB_BYTES}"
        )
    return result


def check_task_files(files: dict[str, int]) -> str:
    """Why a task with these files (path in the task -> size) cannot be read, or ""."""
    limits = {"task.toml": MAX_TOML_BYTES, "instruction.md": MAX_INSTRUCTION_BYTES}
    for name, limit in limits.items():
        if files.get(name, 0) > limit:
            return f"{name}: {files[name]} bytes, over the limit of {limit}"
    if "instruction.md" not in files:
        return "no instruction.md (what the agent is told)"
    if "tests/test.sh" not in files:
        return "no tests/test.sh (the verifier that writes the reward)"
    for part in PARTS:
        sizes = [s for p, s in files.items() if p.startswith(f"{part}/")]
        if len(sizes) > MAX_TREE_FILES:
            return f"{part}/: {len(sizes)} files, more than {MAX_TREE_FILES}"
        if sum(sizes) > MAX_TREE_BYTES:
            return f"{part}/: {sum(sizes)} bytes of files, over the limit of {MAX_TREE_BYTES}"
    big = next((p for p, s in sorted(files.items()) if s > MAX_TREE_BYTES), None)
    if big is not None:
        return f"{big}: {files[big]} bytes, over the limit of {MAX_TREE_BYTES} for a file"
    return ""


def _not_a_layout(listing: Listing) -> str:
    under = sorted({p.removeprefix("tasks/").split("/")[0] for p in listing.files})
    found = f"under tasks/: {_few(under)}"
    if not under:
        found = f"no tasks/ folder; at the top: {_few(listing.top)}"
    return (
        f"{listing.ref.label}: not a Harbor dataset: no task.toml in tasks/<name>/ or "
        f"tasks/<group>/<name>/ ({found})"
    )


def _few(names: list[str] | tuple[str, ...]) -> str:
    return (", ".join(names[:8]) + (", ..." if len(names) > 8 else "")) if names else "nothing"


def from_hub_error(exc: BaseException, ref: HubRef | None) -> TaskError:
    """What ``huggingface_hub`` raised, as a :class:`TaskError` saying which failure it was."""
    from huggingface_hub import errors, get_token

    label = ref.label if ref else "Hub search"
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, errors.RevisionNotFoundError) and ref is not None:
        return TaskError(f"{label}: the dataset has no revision {ref.revision!r}")
    if isinstance(exc, errors.GatedRepoError):
        return TaskError(f"{label}: gated: accept its conditions on the Hub, then {LOGIN}")
    if isinstance(exc, errors.RepositoryNotFoundError):
        if status != 401:
            return TaskError(f"{label}: no such dataset on the Hub")
        if get_token() is None:
            why = f"or it is private or gated and no token was given ({LOGIN})"
        else:
            why = "or it is private and the token given (HF_TOKEN or the login) cannot read it"
        return TaskError(f"{label}: no such dataset on the Hub, {why}")
    if isinstance(exc, errors.HfHubHTTPError) and status == 401:
        return TaskError(f"{label}: the Hub refused the token (invalid credentials): {LOGIN}")
    if isinstance(exc, errors.HfHubHTTPError):
        return TaskError(f"{label}: the Hub answered {status}: {str(exc).strip().splitlines()[0]}")
    if _is_network(exc):
        return TaskError(f"{label}: the Hub could not be reached ({_kind(exc)}): network down?")
    return TaskError(f"{label}: {type(exc).__name__}: {exc}")


def _is_network(exc: BaseException | None) -> bool:
    """A connection refused or timed out, or offline mode, anywhere in the exception's chain."""
    from huggingface_hub.errors import OfflineModeIsEnabled

    kinds: list[type[BaseException]] = [OfflineModeIsEnabled, ConnectionError, TimeoutError]
    for module in ("httpx2", "httpx"):
        try:
            lib: Any = __import__(module)
        except ImportError:
            continue
        kinds += [lib.ConnectError, lib.TimeoutException, lib.NetworkError]
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, tuple(kinds)):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _kind(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def glob_escape(path: str) -> str:
    """``path`` as a pattern matching only itself (``snapshot_download`` patterns are fnmatch)."""
    return re.sub(r"([\[\]*?])", r"[\1]", path)


def progress_bar(report: Progress) -> type:
    """A silent progress bar class for ``snapshot_download`` that reports files done / total."""
    from tqdm.auto import tqdm

    class Reporting(tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.files = kwargs.get("unit", "it") != "B"  # the bytes bars are not reported
            self.done, self.count = 0, int(kwargs.get("total") or 0)
            kwargs.pop("name", None)
            super().__init__(*args, **{**kwargs, "disable": True})
            if self.files:
                report(0, self.count)

        def update(self, n: float | None = 1) -> bool | None:
            if self.files:
                self.done += int(n or 0)
                report(self.done, self.count)
            return super().update(n)

    return Reporting
