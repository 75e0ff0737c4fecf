"""Datasets added to a running Harbor server from the Hub (the Tasks tab's "Add from the Hub").

:class:`HubAdds` lists the public datasets tagged ``harbor`` and adds one as a served split: its
download runs in a background thread (one at a time per dataset, ``MAX_RUNNING`` at once), its
progress (files done / in all) kept for the page; when it is read the split is served
(``HarborService.add_split``) and the tasks that could not be read are listed. A dataset added
this way can be removed again (unserved, its cached copy deleted); the datasets the server was
started with cannot. Only a dataset the last listings returned can be added (never a local path,
never a private dataset), at most ``MAX_ADDED`` of them; one dataset's tasks are bounded by the
Hub reader (``MAX_HUB_BYTES``, ``MAX_TASKS``). No Gradio here: the page draws :meth:`states`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Literal

from openenv.core.harness.tasks import TaskError
from openenv.core.harness.tasks.datasets import TaskProblem
from openenv.core.harness.tasks.hub import HubDataset, list_hub_datasets, parse_hub_spec
from openenv.harbor.service import HarborService, ServiceError

MAX_RUNNING = 2  # downloads at once
MAX_ADDED = 8  # datasets added (and being added) at once
MAX_KNOWN = 500  # datasets remembered from the listings (only those can be added)
MAX_PROBLEMS = 50  # tasks that could not be read, kept per dataset

AddStatus = Literal["adding", "added", "failed"]


class HubAddError(ValueError):
    """An add or a remove refused, and why (nothing was changed)."""


@dataclass
class HubAdd:
    """One dataset being added, added, or that failed to be."""

    id: str
    status: AddStatus = "adding"
    done: int = 0
    total: int = 0
    tasks: int = 0
    reason: str = ""  # why it failed
    note: str = ""  # e.g. read from the cache: the Hub was unreachable
    problems: list[TaskProblem] = field(default_factory=list)
    started_at: float = field(default_factory=time.time)


class HubAdds:
    """The Hub datasets added to ``service`` (the splits it was started with stay)."""

    def __init__(self, service: HarborService) -> None:
        self.service = service
        self.started_with = frozenset(s["name"] for s in service.splits())
        self.version = 0  # counts the served splits' changes (a page redraws its cards on one)
        self._adds: dict[str, HubAdd] = {}
        self._known: dict[str, HubDataset] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()

    # -- the listing ---------------------------------------------------------------------------

    def listing(self, search: str = "", limit: int = 50) -> list[HubDataset]:
        """Public datasets tagged ``harbor`` matching ``search`` (a :class:`TaskError` when the
        Hub cannot be searched); the ones listed can be added."""
        found = list_hub_datasets(search.strip(), limit)
        with self._lock:
            for dataset in found:
                self._known.pop(dataset.id, None)
                self._known[dataset.id] = dataset
            while len(self._known) > MAX_KNOWN:
                self._known.pop(next(iter(self._known)))
        return found

    # -- adding and removing -------------------------------------------------------------------

    def states(self) -> list[HubAdd]:
        """Every add (adding, added, failed), oldest first (copies)."""
        with self._lock:
            return [_copy(a) for a in self._adds.values()]

    def running(self) -> bool:
        with self._lock:
            return any(a.status == "adding" for a in self._adds.values())

    def start(self, dataset_id: str) -> HubAdd:
        """Start adding a listed dataset in the background; :class:`HubAddError` says why not."""
        with self._lock:
            listed = self._known.get(dataset_id)
            self._check(dataset_id, listed)
            add = self._adds[dataset_id] = HubAdd(dataset_id)
            thread = threading.Thread(
                target=self._add, args=(add,), name="harbor-hub-add", daemon=True
            )
            self._threads[dataset_id] = thread
        thread.start()
        return _copy(add)

    def _check(self, dataset_id: str, listed: HubDataset | None) -> None:
        if listed is None:
            raise HubAddError(f"{dataset_id[:200]}: not in the Hub listing (search for it first)")
        if listed.problem:
            raise HubAddError(f"{dataset_id} cannot be added: {listed.problem}")
        if dataset_id in self.started_with:
            raise HubAddError(f"{dataset_id} is served already (this server started with it)")
        known = self._adds.get(dataset_id)
        if known is not None and known.status == "adding":
            raise HubAddError(f"{dataset_id} is being added already")
        if known is not None and known.status == "added":
            raise HubAddError(f"{dataset_id} is added already")
        adds = [a for a in self._adds.values() if a.status != "failed"]
        if sum(a.status == "adding" for a in adds) >= MAX_RUNNING:
            raise HubAddError(
                f"{MAX_RUNNING} datasets are being added already: add this one when one is done"
            )
        if len(adds) >= MAX_ADDED:
            raise HubAddError(
                f"{MAX_ADDED} datasets are added already (at most {MAX_ADDED}): remove one first"
            )

    def _add(self, add: HubAdd) -> None:
        from openenv.core.harness.tasks.hub import load_hub_split

        def progress(done: int, total: int) -> None:
            with self._lock:
                add.done, add.total = done, total

        try:
            ref = parse_hub_spec(f"hf://datasets/{add.id}")  # never a local path
            assert ref is not None  # an hf:// spec is a Hub dataset or a TaskError
            split = load_hub_split(ref, add.id, progress)
            if not split.tasks:
                reasons = "; ".join(f"{p.task}: {p.reason}" for p in split.problems[:3])
                raise TaskError(f"{add.id}: no task could be read ({reasons or 'none found'})")
        except Exception as exc:  # a failed add is said on the page, not lost
            reason = str(exc) if isinstance(exc, TaskError) else f"{type(exc).__name__}: {exc}"
            with self._lock:
                add.status, add.reason = "failed", reason[:2000]
            return
        self.service.add_split(add.id, split.tasks)
        with self._lock:
            add.status, add.tasks, add.note = "added", len(split.tasks), split.note
            add.problems = split.problems[:MAX_PROBLEMS]
            self.version += 1

    def remove(self, dataset_id: str) -> None:
        """Stop serving an added dataset and delete its downloaded copy (blocking: rmtree)."""
        from openenv.core.harness.tasks.hub import remove_cached

        with self._lock:
            add = self._adds.get(dataset_id)
            if dataset_id in self.started_with:
                raise HubAddError(f"{dataset_id} was served from the start: it cannot be removed")
            if add is None or add.status == "adding":
                what = "is being added" if add is not None else "was not added from the Hub"
                raise HubAddError(f"{dataset_id[:200]} {what}: nothing to remove")
        busy = [r for r in self.service.runs() if r.split == dataset_id and not r.finished]
        if busy:
            raise HubAddError(
                f"{len(busy)} run(s) on {dataset_id} are still going: cancel them or wait"
            )
        with self._lock:
            self._adds.pop(dataset_id, None)
            self._threads.pop(dataset_id, None)
            if add.status == "added":
                self.version += 1
        if add.status == "added":
            with contextlib.suppress(ServiceError):  # unserved already
                self.service.remove_split(dataset_id)
            if not self._shares_cache(dataset_id):
                remove_cached(f"hf://datasets/{dataset_id}")

    def _shares_cache(self, dataset_id: str) -> bool:
        """Whether a split the server started with reads the same Hub dataset's copy."""
        for name in self.started_with:
            with contextlib.suppress(TaskError):
                ref = parse_hub_spec(name)
                if ref is not None and ref.repo_id == dataset_id:
                    return True
        return False

    def wait(self, dataset_id: str, timeout_s: float | None = None) -> HubAdd | None:
        """The add once its download has ended (tests, and code that adds without a page)."""
        with self._lock:
            thread = self._threads.get(dataset_id)
        if thread is not None:
            thread.join(timeout_s)
        with self._lock:
            add = self._adds.get(dataset_id)
            return _copy(add) if add is not None else None


def _copy(add: HubAdd) -> HubAdd:
    return HubAdd(**{**add.__dict__, "problems": list(add.problems)})


__all__ = ["MAX_ADDED", "MAX_RUNNING", "HubAdd", "HubAddError", "HubAdds"]
