"""Typed client of a Harbor server (``openenv harbor serve``, or this package's app).

Discovery is the Task API (plain HTTP, no side effects); a rollout is one long MCP tool call::

    from harbor_env import HarborEnv

    with HarborEnv(base_url="http://localhost:8000") as env:
        split = env.splits()[0]["name"]
        result = env.run_rollout(split=split, task_index=0, harness="mini-swe-agent",
                                 sandbox="process")
        print(result.reward, result.n_turns)
        trace = env.fetch_training_trace()     # the validated TrainingTrace of that rollout

Its methods answer plain code and ``await`` alike (:mod:`openenv.client.modes`). A request the
server refuses (unknown split, index, harness or sandbox, a full queue) raises
:class:`~openenv.core.errors.ToolCallError` (or :class:`HarborApiError` for the HTTP routes)
with the server's reason; a rollout that ran and failed is a result with ``ok`` false.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from harbor_env.models import HarborRolloutResult, HarborTaskRef, TrainingTrace
from openenv.client.tool_client import MCPToolClient
from openenv.core.errors import ClientError

ROLLOUT_TIMEOUT_S = 6 * 3600.0  # one call lasts a whole rollout
HTTP_TIMEOUT_S = 120.0
RUN_ID = re.compile(r"[0-9a-f]{16}")


class HarborApiError(ClientError):
    """The server refused an HTTP request of the Task API or the runs; the message says why."""

    code = "HARBOR_API"


class HarborEnv(MCPToolClient):
    """One session on a Harbor server. ``message_timeout_s`` defaults to six hours: a
    rollout is one call."""

    def __init__(
        self, base_url: str, *, message_timeout_s: float = ROLLOUT_TIMEOUT_S, **kwargs: Any
    ) -> None:
        super().__init__(base_url, message_timeout_s=message_timeout_s, **kwargs)
        self.last_run_id: str | None = None

    # -- the Task API ----------------------------------------------------------------------

    async def splits(self) -> list[dict[str, Any]]:
        """The datasets served: ``[{"name", "num_tasks"}]``."""
        return await self._http("GET", "/harbor_env/splits")

    async def num_tasks(self, split: str = "") -> int:
        """Tasks in ``split`` (default: the first)."""
        payload = await self._http("POST", "/harbor_env/num_tasks", {"split": split})
        return int(payload["num_tasks"])

    async def get_task(self, split: str, index: int) -> HarborTaskRef:
        """Task ``index`` of ``split``: its name and instruction."""
        payload = await self._http("POST", "/harbor_env/task", {"split": split, "index": index})
        return HarborTaskRef.model_validate(payload["task"])

    async def get_task_range(
        self, split: str, start: int = 0, stop: int = 20
    ) -> list[HarborTaskRef]:
        """Tasks ``start`` to ``stop`` (excluded) of ``split``."""
        body = {"split": split, "start": start, "stop": stop}
        payload = await self._http("POST", "/harbor_env/task_range", body)
        return [HarborTaskRef.model_validate(t) for t in payload["tasks"]]

    # -- rollouts (MCP) ----------------------------------------------------------------------

    async def run_rollout(
        self,
        *,
        split: str = "",
        task_index: int = 0,
        harness: str = "mini-swe-agent",
        sandbox: str = "process",
        llm_url: str = "",
        model: str = "",
        api_key: str = "",
        agent_timeout_sec: float = 0.0,
        purpose: str = "auto",
        **more: Any,
    ) -> HarborRolloutResult:
        """Run one rollout and return its result (``reward``, ``turns`` with the engine's token
        ids and logprobs for a ``[TRAIN]`` capture). Without ``llm_url`` the server's endpoint
        plays the model (or, on a server without one, the scripted TEST engine, for tasks with
        a solution); ``result.model`` says which. ``more``: the reference's other arguments."""
        arguments = {
            "split": split,
            "task_index": task_index,
            "harness": harness,
            "sandbox": sandbox,
            "llm_url": llm_url,
            "model": model,
            "api_key": api_key,
            "agent_timeout_sec": agent_timeout_sec,
            "purpose": purpose,
            **more,
        }
        data = await self.call_tool("run_rollout", **arguments)
        result = HarborRolloutResult.model_validate(data)
        self.last_run_id = result.run_id or None
        return result

    async def capabilities(self) -> dict[str, Any]:
        """Harnesses (installed or not), sandboxes (usable or why not), splits, the endpoint."""
        return await self.call_tool("capabilities")

    # -- runs --------------------------------------------------------------------------------

    async def runs(self, status: str = "") -> list[dict[str, Any]]:
        """The server's kept runs, newest first (of one ``status`` when given)."""
        query = f"?status={status}" if status else ""
        return await self._http("GET", f"/harbor_env/runs{query}")

    async def fetch_result(self, run_id: str | None = None) -> HarborRolloutResult:
        """A run's result (default: this client's last rollout)."""
        path = f"/harbor_env/runs/{self._run_id(run_id)}/result.json"
        return HarborRolloutResult.model_validate(await self._http("GET", path))

    async def fetch_training_trace(self, run_id: str | None = None) -> TrainingTrace:
        """A run's validated :class:`TrainingTrace` (default: this client's last rollout);
        an eval-only capture raises :class:`HarborApiError` saying why it has none."""
        path = f"/harbor_env/runs/{self._run_id(run_id)}/training_trace.json"
        return TrainingTrace.model_validate(await self._http("GET", path))

    # -- internals ---------------------------------------------------------------------------

    def _run_id(self, run_id: str | None) -> str:
        chosen = run_id or self.last_run_id
        if chosen is None:
            raise ValueError("no run_id given and this client has run no rollout yet")
        if not RUN_ID.fullmatch(chosen):
            raise ValueError(f"{chosen[:40]!r} is not a run id (16 hexadecimal characters)")
        return chosen

    async def _http(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        try:
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as http:
                reply = await http.request(
                    method, f"{self.base_url}{path}", json=body, headers=headers
                )
        except httpx.HTTPError as exc:
            raise HarborApiError(f"{path}: {type(exc).__name__}: {exc}", "CONNECT") from None
        if reply.status_code >= 400:
            try:
                detail = reply.json().get("detail", reply.text)
            except ValueError:
                detail = reply.text[:500]
            raise HarborApiError(f"{path}: {detail}", str(reply.status_code))
        return reply.json()
