"""The Harbor server's core, without HTTP: the served task splits and the runs.

``HarborService(splits, endpoints)`` lists tasks (answer fields left out), starts rollouts
on a bounded pool of worker threads (a run goes on whether or not whoever started it stays),
keeps the last runs, shows a running run's captured calls as they are made, and cancels.
The Task API, the ``run_rollout`` MCP tool and the ``/web`` UI all call this one object.

Bounds: ``max_running`` rollouts at once, ``max_queued`` waiting (one more is refused with the
reason), ``max_kept`` finished runs (the oldest dropped), files shown at most
``MAX_FILE_VIEW_BYTES``. A visitor's endpoint key is used for the run and never kept on it.

Whose runs: a run is its starter's (``RunRequest.owner``: the client it counts against, as
:meth:`openenv.server.context.ServerContext.owner_of` says — a visitor's address on a public
server; ``None`` for loopback clients and holders of the API token, the operator). A
``viewer`` (the same kind of value) sees and cancels its own runs; the operator (``None``)
sees every run. To anyone else another's run does not exist: the same error as an unknown id.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from openenv.core.harness.capture import CaptureResult
from openenv.core.harness.capture.sampling import evaluation_sampling, training_sampling
from openenv.core.harness.harnesses import HarnessUnavailable, get_harness
from openenv.core.harness.rollout import SANDBOXES, run_rollout
from openenv.core.harness.tasks import HarborTask, TaskError
from openenv.harbor.endpoints import Endpoint, EndpointError, Endpoints, test_endpoint
from openenv.harbor.runs import (
    FINISHED,
    RunRecord,
    RunRequest,
    RunStatus,
    ServiceError,
    asked_model,
    check_hf,
)
from openenv.harbor.workspace import Workspace, WorkspaceError, Workspaces

MAX_FILE_VIEW_BYTES = 256 * 1024
# task.toml fields that hold the answer: never shown before a run
ANSWER_FIELDS = frozenset(
    {"gold_answer", "answer", "answers", "solution", "expected", "expected_output", "reference"}
)
TASK_PARTS = ("environment", "tests")  # shown; solution/ holds the answer


class HarborService:
    """Served splits (name -> tasks) and the runs on them."""

    def __init__(
        self,
        splits: Mapping[str, Sequence[HarborTask]],
        endpoints: Endpoints,
        *,
        max_running: int = 2,
        max_queued: int = 32,
        max_kept: int = 200,
        max_workspaces: int = 4,
    ) -> None:
        self._splits: dict[str, list[HarborTask]] = {k: list(v) for k, v in splits.items()}
        self.endpoints = endpoints
        self.max_queued, self.max_kept = max_queued, max_kept
        self._runs: OrderedDict[str, RunRecord] = OrderedDict()
        self._cancel: dict[str, threading.Event] = {}
        self._live: dict[str, Endpoint] = {}
        self._done: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=max_running, thread_name_prefix="harbor-run")
        self.workspaces = Workspaces(max_workspaces)

    # -- tasks -------------------------------------------------------------------------------

    def splits(self) -> list[dict[str, Any]]:
        """Every served split: its name and task count."""
        return [{"name": name, "n_tasks": len(tasks)} for name, tasks in self._splits.items()]

    def add_split(self, name: str, tasks: Sequence[HarborTask]) -> None:
        """Serve one more split (or replace one of that name)."""
        with self._lock:
            self._splits[name] = list(tasks)

    def remove_split(self, name: str) -> None:
        with self._lock:
            if self._splits.pop(name, None) is None:
                raise ServiceError(f"no split {name!r}")

    def task(self, split: str, index: int) -> HarborTask:
        """Task ``index`` of ``split``, or the reason there is none."""
        tasks = self._splits.get(split)
        if tasks is None:
            known = ", ".join(self._splits) or "none"
            raise ServiceError(f"no split {split!r}: this server serves {known}")
        if not 0 <= index < len(tasks):
            raise ServiceError(f"task_index {index}: split {split!r} has {len(tasks)} task(s)")
        return tasks[index]

    def tasks(self, split: str | None = None) -> list[dict[str, Any]]:
        """Cards for every task (of one split, or all): name, split, index, metadata."""
        names = [split] if split is not None else list(self._splits)
        cards = []
        for name in names:
            if name not in self._splits:
                raise ServiceError(f"no split {name!r}")
            for index, task in enumerate(self._splits[name]):
                summary = task.summary()
                summary.pop("path", None)  # the server's disk layout is not a visitor's business
                cards.append(
                    {
                        **summary,
                        "split": name,
                        "index": index,
                        "metadata": visible_metadata(task),
                        "instruction_preview": task.instruction[:300],
                    }
                )
        return cards

    def task_view(self, split: str, index: int) -> dict[str, Any]:
        """What the agent receives, the task's files and settings; no answer fields."""
        task = self.task(split, index)
        config = {k: v for k, v in task.config.items() if k not in ("metadata", "solution")}
        files = []
        for part in TASK_PARTS:
            with contextlib.suppress(TaskError, OSError):
                for path, data in sorted(task.files(part).items()):
                    files.append({"path": f"{part}/{path}", "bytes": len(data)})
        return {
            "split": split,
            "index": index,
            "name": task.name,
            "instruction": task.instruction,
            "metadata": visible_metadata(task),
            "settings": config,
            "files": files,
            "agent_timeout_s": task.agent_timeout_s,
            "verifier_timeout_s": task.verifier_timeout_s,
            "has_solution": (task.path / "solution" / "solve.sh").is_file(),
        }

    def task_file(self, split: str, index: int, path: str) -> str:
        """One of the task's shown files as text (bounded; binary files are described)."""
        task = self.task(split, index)
        part, _, rest = path.partition("/")
        if part not in TASK_PARTS or not rest:
            shown = " and ".join(f"{p}/" for p in TASK_PARTS)
            raise ServiceError(f"{path!r}: files are shown from {shown} only")
        try:
            data = task.files(part).get(rest)
        except TaskError as exc:
            raise ServiceError(str(exc)) from exc
        if data is None:
            raise ServiceError(f"{path!r}: no such file in task {task.name}")
        shown = data[:MAX_FILE_VIEW_BYTES]
        try:
            text = shown.decode("utf-8")
        except UnicodeDecodeError:
            return f"(binary file, {len(data):,} bytes)"
        if len(data) > len(shown):
            text += f"\n… ({len(data) - len(shown):,} more bytes not shown)"
        return text

    # -- runs --------------------------------------------------------------------------------

    def start(self, request: RunRequest) -> RunRecord:
        """Queue a run; refused at once (ServiceError) when it could never run."""
        task = self.task(request.split, request.task_index)
        if request.sandbox not in SANDBOXES:
            raise ServiceError(
                f"unknown sandbox {request.sandbox!r}: runs use {', '.join(SANDBOXES)}"
            )
        try:
            harness = get_harness(request.harness)
        except HarnessUnavailable as exc:
            raise ServiceError(str(exc)) from exc
        if problem := harness.problem():
            raise ServiceError(problem)
        try:
            training_sampling(request.sampling or None)
            evaluation_sampling(request.eval_sampling)
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
        if request.sampling and request.eval_sampling is not None:
            raise ServiceError("give sampling (a training policy) or eval_sampling, not both")
        if request.model == "server" and self.endpoints.server is None:
            raise ServiceError(
                "this server was started without --llm-url: choose your own endpoint "
                "or the TEST engine"
            )
        if request.model == "url" and not request.url:
            raise ServiceError("a run on your own endpoint needs its URL")
        if request.model == "hf":
            check_hf(request)
        if request.model == "test" and not (task.path / "solution" / "solve.sh").is_file():
            raise ServiceError(f"{task.name} has no solution for the TEST engine to replay")
        record = RunRecord(
            id=secrets.token_hex(8),
            split=request.split,
            task_index=request.task_index,
            task=task.name,
            harness=request.harness,
            sandbox=request.sandbox,
            model=asked_model(request),
            owner=request.owner,
        )
        with self._lock:
            waiting = sum(1 for r in self._runs.values() if r.status == "queued")
            if waiting >= self.max_queued:
                raise ServiceError(
                    f"{waiting} runs are waiting already (at most {self.max_queued}): "
                    "try again when one has started"
                )
            self._runs[record.id] = record
            self._cancel[record.id] = threading.Event()
            self._done[record.id] = threading.Event()
            self._forget_old()
            queued = record.model_copy()
        self._pool.submit(self._run, record.id, request)
        return queued

    def open_workspace(self, split: str, index: int, sandbox: str = "process") -> Workspace:
        """A task's sandbox for a caller that runs the loop itself (:mod:`.workspace`), within
        the server's bound on them (ServiceError past it, or when its sandbox fails)."""
        task = self.task(split, index)
        try:
            return self.workspaces.open(task, sandbox)
        except WorkspaceError as exc:
            raise ServiceError(str(exc)) from None

    def runs(self, status: str | None = None, viewer: str | None = None) -> list[RunRecord]:
        """The kept runs ``viewer`` may see, newest first (of one status when given)."""
        with self._lock:
            kept = [r.model_copy() for r in reversed(self._runs.values()) if r.seen_by(viewer)]
        return [r for r in kept if status in (None, "", r.status)]

    def run(self, run_id: str, viewer: str | None = None) -> RunRecord:
        """Run ``run_id``, if ``viewer`` may see it (ServiceError otherwise, as if unknown)."""
        with self._lock:
            record = self._runs.get(run_id)
            if record is None or not record.seen_by(viewer):
                raise ServiceError(f"no run {run_id!r} (unknown, or dropped as old)")
            return record.model_copy()

    def capture(self, run_id: str) -> CaptureResult | None:
        """The run's captured calls: as they are made while it runs, all of them after."""
        record = self.run(run_id)
        if record.result is not None:
            return record.result.capture
        with self._lock:
            endpoint = self._live.get(run_id)
        if endpoint is None or record.session_id is None:
            return None
        with contextlib.suppress(KeyError):  # the session just ended: the result is coming
            return endpoint.proxy.result(record.session_id)
        return None

    def wait(self, run_id: str, timeout_s: float | None = None) -> RunRecord:
        """The run once it has ended (or as it is when ``timeout_s`` passes)."""
        self.run(run_id)
        done = self._done.get(run_id)
        if done is not None:
            done.wait(timeout_s)
        return self.run(run_id)

    def cancel(self, run_id: str, viewer: str | None = None) -> RunRecord:
        """Stop a queued or running run (its sandbox is closed); a finished one is left."""
        record = self.run(run_id, viewer)
        event = self._cancel.get(run_id)
        if not record.finished and event is not None:
            event.set()
        return self.run(run_id)

    def close(self) -> None:
        """Cancel every run, close every task workspace, wait for the workers, close the
        endpoints."""
        for event in list(self._cancel.values()):
            event.set()
        self.workspaces.close()
        self._pool.shutdown(wait=True, cancel_futures=False)
        self.endpoints.close()

    # -- the worker --------------------------------------------------------------------------

    def _update(self, run_id: str, **changes: Any) -> None:
        with self._lock:
            record = self._runs.get(run_id)
            if record is not None:
                for name, value in changes.items():
                    setattr(record, name, value)

    def _forget_old(self) -> None:
        finished = [k for k, r in self._runs.items() if r.finished]
        for run_id in finished[: max(0, len(self._runs) - self.max_kept)]:
            del self._runs[run_id]
            self._cancel.pop(run_id, None)
            self._done.pop(run_id, None)

    def _run(self, run_id: str, request: RunRequest) -> None:
        cancel = self._cancel[run_id]
        try:
            if cancel.is_set():
                self._update(run_id, status="cancelled", reason="cancelled before it started")
                return
            self._update(run_id, status="running", started_at=time.time())
            task = self.task(request.split, request.task_index)
            with self._endpoint(request, task) as endpoint:
                self._update(run_id, model=endpoint.describe())
                with self._lock:
                    self._live[run_id] = endpoint
                result = run_rollout(
                    task,
                    proxy=endpoint.proxy,
                    proxy_url=endpoint.proxy_url,
                    harness=get_harness(request.harness),
                    model=endpoint.model,
                    sandbox=request.sandbox,
                    agent_timeout_s=request.timeout_s,
                    engine_check=endpoint.check,
                    cancel=cancel,
                    on_session=lambda sid: self._update(run_id, session_id=sid),
                    sampling=request.sampling or None,
                    eval_sampling=request.eval_sampling,
                    max_calls=request.max_calls,
                )
            status: RunStatus = "failed"
            if result.status in ("ok", "cancelled"):
                status = result.status
            self._update(run_id, status=status, reason=result.reason, result=result)
        except (ServiceError, EndpointError, HarnessUnavailable, TaskError, OSError) as exc:
            self._update(run_id, status="failed", reason=str(exc))
        except Exception as exc:  # a run's failure is its record's, not the pool's
            self._update(run_id, status="failed", reason=f"{type(exc).__name__}: {exc}")
        finally:
            with self._lock:
                self._live.pop(run_id, None)
            self._update(run_id, ended_at=time.time())
            done = self._done.get(run_id)
            if done is not None:
                done.set()

    @contextlib.contextmanager
    def _endpoint(self, request: RunRequest, task: HarborTask) -> Any:
        if request.model == "test":
            with test_endpoint(task) as scripted:
                yield scripted
            return
        endpoint: Endpoint | None
        if request.model == "server":
            endpoint = self.endpoints.server
            if endpoint is None:
                raise ServiceError("this server was started without --llm-url")
        elif request.model == "hf":
            endpoint = self.endpoints.for_hf(request.model_name or "", request.api_key or "")
        else:
            endpoint = self.endpoints.for_url(
                request.url or "", model=request.model_name, api_key=request.api_key
            )
        endpoint.busy += 1
        try:
            yield endpoint
        finally:
            endpoint.busy -= 1


def visible_metadata(task: HarborTask) -> dict[str, Any]:
    """``[metadata]`` without the fields that hold the answer."""
    return {k: v for k, v in task.metadata.items() if k.lower() not in ANSWER_FIELDS}


__all__ = [  # the run types live in :mod:`openenv.harbor.runs`; importable from here too
    "FINISHED",
    "HarborService",
    "RunRecord",
    "RunRequest",
    "ServiceError",
    "visible_metadata",
]
