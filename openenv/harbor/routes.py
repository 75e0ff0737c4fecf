"""The Harbor server's HTTP routes: the Task API (``openenv`` 0.10's paths and payloads) and the
runs, with their downloads.

Task API (side-effect free)::

    GET  /harbor_env/splits                     [{"name", "num_tasks"}]
    POST /harbor_env/num_tasks   {split}        {"num_tasks"}
    POST /harbor_env/tasks       {split}        {"tasks": [HarborTaskRef], "env_name"}
    POST /harbor_env/task        {split, index} {"task": HarborTaskRef}
    POST /harbor_env/task_range  {split, start, stop}  {"tasks": [...]}  (at most MAX_RANGE)

Runs::

    GET  /harbor_env/runs[?status=ok]           newest first, without their bodies
    GET  /harbor_env/runs/{id}                  the run and its result
    POST /harbor_env/runs/{id}/cancel
    GET  /harbor_env/runs/{id}/result.json      the HarborRolloutResult
    GET  /harbor_env/runs/{id}/training_trace.json   the validated TrainingTrace (409: why not)
    GET  /harbor_env/runs/{id}/capture.json     every captured call, kept and discarded

A visitor (a client other than loopback and the API token's holders) lists, reads and cancels
only the runs it started (:class:`~openenv.harbor.service.HarborService`: another's is 404).
An empty ``split`` is the first one, as in the reference. Bodies are bounded (the server's
message limit), ids checked, and every refusal is JSON: ``{"detail": ..., "code": ...}``.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, FastAPI
from starlette.requests import Request
from starlette.responses import Response

from openenv.core.errors import InvalidAction, OpenEnvError
from openenv.core.harness.capture import EvalCaptureError
from openenv.core.serialization import load_untrusted
from openenv.harbor.service import HarborService, ServiceError
from openenv.harbor.wire import rollout_result, task_ref
from openenv.server.auth import check_bearer
from openenv.server.limits import read_body

ENV_NAME = "harbor_env"
PREFIX = f"/{ENV_NAME}"
MAX_RANGE = 1000
MAX_SPLIT_CHARS = 500
RUN_ID = re.compile(r"[0-9a-f]{16}")


class NotFound(OpenEnvError):
    code = "NOT_FOUND"
    http_status = 404


class Conflict(OpenEnvError):
    code = "CONFLICT"
    http_status = 409


def add_harbor_routes(app: FastAPI, service: HarborService) -> None:
    """Add the Task API and the run routes of ``service`` to ``app``."""
    app.include_router(_router(service))


def _router(service: HarborService) -> APIRouter:
    r = APIRouter(tags=["Harbor"])

    def authorized(request: Request) -> str | None:
        """Check the API token; return who asks (``ServerContext.owner_of``: None for the
        operator, a visitor's address otherwise), whose runs it may see."""
        ctx = getattr(request.app.state, "openenv", None)
        check_bearer(getattr(ctx, "token", None), request.headers.get("authorization"))
        return ctx.owner_of(request.scope) if ctx is not None else None

    async def body(request: Request, route: str) -> dict[str, Any]:
        authorized(request)
        raw = await read_body(request, f"the body of {route}")
        try:
            parsed = load_untrusted(raw) if raw.strip() else {}
        except ValueError as exc:
            raise InvalidAction(f"the body of {route} is {exc}") from None
        if not isinstance(parsed, dict):
            raise InvalidAction(f"the body of {route} must be a JSON object")
        return parsed

    def split_of(payload: dict[str, Any]) -> str:
        split = payload.get("split", "")
        if not isinstance(split, str) or len(split) > MAX_SPLIT_CHARS:
            raise InvalidAction(f"split must be a string of at most {MAX_SPLIT_CHARS} characters")
        if split:
            return split
        names = [s["name"] for s in service.splits()]
        if not names:
            raise InvalidAction("this server serves no splits")
        return names[0]

    def count(split: str) -> int:
        for s in service.splits():
            if s["name"] == split:
                return int(s["n_tasks"])
        known = ", ".join(s["name"] for s in service.splits()) or "none"
        raise InvalidAction(f"no split {split!r}: this server serves {known}")

    def integer(payload: dict[str, Any], name: str, default: int | None) -> int | None:
        value = payload.get(name, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidAction(f"{name} must be an integer")
        return value

    def run(run_id: str, viewer: str | None) -> Any:
        if not RUN_ID.fullmatch(run_id):
            raise NotFound("a run id is 16 hexadecimal characters")
        try:
            return service.run(run_id, viewer)
        except ServiceError as exc:
            raise NotFound(str(exc)) from None

    @r.get(f"{PREFIX}/splits")
    async def splits(request: Request) -> list[dict[str, Any]]:
        authorized(request)
        return [{"name": s["name"], "num_tasks": s["n_tasks"]} for s in service.splits()]

    @r.post(f"{PREFIX}/num_tasks")
    async def num_tasks(request: Request) -> dict[str, Any]:
        return {"num_tasks": count(split_of(await body(request, "/num_tasks")))}

    def refs(split: str, start: int | None, stop: int | None) -> list[dict[str, Any]]:
        indices = range(count(split))[start:stop]
        if len(indices) > MAX_RANGE:
            raise InvalidAction(
                f"{len(indices)} tasks asked for: at most {MAX_RANGE} per call (give start, stop)"
            )
        return [task_ref(split, i, service.task(split, i)).model_dump() for i in indices]

    @r.post(f"{PREFIX}/tasks")
    async def tasks(request: Request) -> dict[str, Any]:
        split = split_of(await body(request, "/tasks"))
        return {"tasks": refs(split, None, None), "env_name": ENV_NAME}

    @r.post(f"{PREFIX}/task")
    async def task(request: Request) -> dict[str, Any]:
        payload = await body(request, "/task")
        split, index = split_of(payload), integer(payload, "index", None)
        if index is None:
            raise InvalidAction("index is required")
        try:
            found = service.task(split, index)
        except ServiceError as exc:
            raise InvalidAction(str(exc)) from None
        return {"task": task_ref(split, index, found).model_dump()}

    @r.post(f"{PREFIX}/task_range")
    async def task_range(request: Request) -> dict[str, Any]:
        payload = await body(request, "/task_range")
        split = split_of(payload)
        start, stop = integer(payload, "start", None), integer(payload, "stop", None)
        return {"tasks": refs(split, start, stop)}

    @r.get("/list_environments")
    async def list_environments(request: Request) -> list[str]:
        authorized(request)
        return [ENV_NAME]

    @r.get(f"{PREFIX}/runs")
    async def runs(request: Request, status: str = "") -> list[dict[str, Any]]:
        viewer = authorized(request)
        return [record.summary() for record in service.runs(status[:20] or None, viewer)]

    @r.get(PREFIX + "/runs/{run_id}")
    async def one_run(request: Request, run_id: str) -> dict[str, Any]:
        record = run(run_id, authorized(request))
        return {**record.summary(), "result": rollout_result(record).model_dump(mode="json")}

    @r.post(PREFIX + "/runs/{run_id}/cancel")
    async def cancel(request: Request, run_id: str) -> dict[str, Any]:
        viewer = authorized(request)
        run(run_id, viewer)
        return dict(service.cancel(run_id, viewer).summary())

    def download(run_id: str, kind: str, document: str) -> Response:
        disposition = f'attachment; filename="{run_id}.{kind}.json"'
        return Response(
            document, media_type="application/json", headers={"Content-Disposition": disposition}
        )

    @r.get(PREFIX + "/runs/{run_id}/result.json")
    async def result_json(request: Request, run_id: str) -> Response:
        record = run(run_id, authorized(request))
        return download(run_id, "result", rollout_result(record).model_dump_json(indent=1))

    def finished_capture(run_id: str, viewer: str | None) -> Any:
        record = run(run_id, viewer)
        if not record.finished:
            raise Conflict(f"run {run_id} is {record.status}: its capture is complete once it ends")
        if record.result is None or record.result.capture is None:
            raise Conflict(f"run {run_id} captured nothing ({record.status}: {record.reason})")
        return record.result.capture

    @r.get(PREFIX + "/runs/{run_id}/training_trace.json")
    async def training_trace(request: Request, run_id: str) -> Response:
        capture = finished_capture(run_id, authorized(request))
        try:
            trace = capture.to_training_trace()
        except EvalCaptureError as exc:
            raise Conflict(str(exc)) from None
        except ValueError as exc:  # a turn that is not trainable as captured
            raise Conflict(f"run {run_id} has no valid training trace: {exc}") from None
        return download(run_id, "training_trace", trace.model_dump_json())

    @r.get(PREFIX + "/runs/{run_id}/capture.json")
    async def capture_json(request: Request, run_id: str) -> Response:
        document = finished_capture(run_id, authorized(request)).model_dump_json(indent=1)
        return download(run_id, "capture", document)

    return r
