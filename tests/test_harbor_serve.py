"""``openenv harbor serve`` (openenv.harbor.app): the Task API, the run_rollout and capabilities
MCP tools with our client (harbor_env.HarborEnv) on the scripted TEST engine + mini-swe-agent in
the process sandbox, the downloads, the refusals, the reference's own HarborEnv client (openenv
0.10, in its virtualenv) driving our server, and the command itself."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from harbor_support import mini_swe_agent, shipped_server
from servers import ROOT, free_port, served, server_process

from openenv.core.errors import ToolCallError
from openenv.core.harness.capture.level import CaptureLevel
from openenv.core.harness.engine import Engine, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.core.harness.training import TrainingTrace
from openenv.harbor import Endpoints, HarborService, RunRequest, open_endpoint
from openenv.harbor.app import create_harbor_app
from openenv.harbor.tools import HarborEnvironment

try:
    from harbor_env import HarborEnv, HarborRolloutResult
    from harbor_env.client import HarborApiError
except ModuleNotFoundError:  # a checkout installed before envs/harbor_env existed
    sys.path.insert(0, str(ROOT / "envs"))
    from harbor_env import HarborEnv, HarborRolloutResult
    from harbor_env.client import HarborApiError

sys.path.insert(0, str(Path(__file__).parent / "compat"))
from refvenv import ensure_ref_venv

SPLIT = "shipped"
TASKS = load_tasks(shipped_tasks())
HELLO = next(i for i, t in enumerate(TASKS) if t.name == "hello-file")


@pytest.fixture(scope="module")
def mini() -> None:
    mini_swe_agent()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with shipped_server(SPLIT) as base:
        yield base


@pytest.fixture(scope="module")
def rollout(url: str, mini: None) -> dict[str, Any]:
    """One rollout with our client (a trainer's sampling policy, a cap on model calls), and
    what it fetched after it."""
    with HarborEnv(base_url=url) as env:
        result = env.run_rollout(
            split=SPLIT, task_index=HELLO, sampling={"temperature": 0.9}, agent_step_limit=40
        )
        trace = env.fetch_training_trace()
        again = env.fetch_result()
    return {"result": result, "trace": trace, "again": again}


def post(url: str, path: str, body: Any) -> httpx.Response:
    return httpx.post(f"{url}/harbor_env/{path}", json=body, timeout=30)


def test_the_task_api_lists_tasks_as_the_reference_does(url: str) -> None:
    assert httpx.get(f"{url}/harbor_env/splits").json() == [{"name": SPLIT, "num_tasks": 2}]
    assert post(url, "num_tasks", {"split": SPLIT}).json() == {"num_tasks": 2}
    assert post(url, "num_tasks", {"split": ""}).json() == {"num_tasks": 2}  # the first split
    task = post(url, "task", {"split": SPLIT, "index": HELLO}).json()["task"]
    assert task["task_name"] == "hello-file" and task["index"] == HELLO
    assert "Hello, Harbor!" in task["instruction"] and task["dataset"] == SPLIT
    assert "/" not in task["task_id"].removeprefix(f"{SPLIT}/")  # no path of the server's disk
    listed = post(url, "tasks", {"split": SPLIT}).json()
    assert [t["task_name"] for t in listed["tasks"]] == [t.name for t in TASKS]
    assert listed["env_name"] == "harbor_env"
    window = post(url, "task_range", {"split": SPLIT, "start": 1, "stop": 5}).json()["tasks"]
    assert [t["index"] for t in window] == [1]


def test_our_client_lists_tasks_in_plain_and_async_code(url: str) -> None:
    with HarborEnv(base_url=url) as env:
        assert env.splits() == [{"name": SPLIT, "num_tasks": 2}]
        assert env.num_tasks() == 2 and env.get_task(SPLIT, HELLO).task_name == "hello-file"
        assert [t.index for t in env.get_task_range(SPLIT, 0, 2)] == [0, 1]
        with pytest.raises(HarborApiError, match="has 2 task"):
            env.get_task(SPLIT, 5)

    async def listed() -> list[str]:
        async with HarborEnv(base_url=url) as env:
            return [t.task_name for t in await env.get_task_range(SPLIT)]

    assert asyncio.run(listed()) == [t.name for t in TASKS]


def test_the_task_api_refuses_bad_requests_with_the_reason(url: str) -> None:
    unknown = post(url, "task", {"split": "nope", "index": 0})
    assert unknown.status_code == 422 and "this server serves shipped" in unknown.json()["detail"]
    past = post(url, "task", {"split": SPLIT, "index": 9})
    assert past.status_code == 422 and "has 2 task" in past.json()["detail"]
    assert post(url, "task", {"split": SPLIT, "index": "0"}).status_code == 422
    assert post(url, "task", [1, 2]).status_code == 422
    broken = httpx.post(f"{url}/harbor_env/task", content=b"{nope", timeout=30)
    assert broken.status_code == 422 and "body" in broken.json()["detail"]
    huge = httpx.post(f"{url}/harbor_env/task", content=b"x" * (2**20 + 10), timeout=30)
    assert huge.status_code == 413
    for bad in ("../../etc", "0123456789abcdeg", "ffffffffffffffff"):
        reply = httpx.get(f"{url}/harbor_env/runs/{bad}/result.json", timeout=30)
        assert reply.status_code == 404, bad
        assert reply.headers["content-type"].startswith("application/json")


def test_a_rollout_on_the_test_engine_returns_the_reward_and_the_engines_tokens(
    url: str, rollout: dict[str, Any]
) -> None:
    result: HarborRolloutResult = rollout["result"]
    assert result.ok and result.reward == 1.0, (result.error, result.agent_log_tail)
    assert result.model["kind"] == "test" and any("TEST engine" in f for f in result.findings)
    assert result.rollout_type == "train" and result.trainable and result.n_turns >= 1
    audit = httpx.get(f"{url}/harbor_env/runs/{result.run_id}/capture.json", timeout=30)
    assert audit.status_code == 200 and "attachment" in audit.headers["content-disposition"]
    engine_nodes = {n["node_id"]: n for n in audit.json()["nodes"]}
    for turn in result.turns:  # the engine's own ids and logprobs, as the proxy captured them
        node = engine_nodes[turn.node_id]
        assert turn.prompt_token_ids == node["prompt_token_ids"]
        assert turn.completion_token_ids == node["completion_token_ids"]
        assert turn.per_token_logps == node["per_token_logps"]
        assert len(turn.per_token_logps) == len(turn.completion_token_ids) > 0
        # the trainer's policy went with every call, whatever the agent asked
        assert turn.sampling_params["temperature"] == 0.9 == node["sampling_params"]["temperature"]
        assert turn.sampling_params["top_p"] == 1.0
    assert result.budget_stop_count == 0 and result.exception_type is None
    assert result.conversations and result.conversations[0].messages


def test_the_training_trace_and_the_result_can_be_fetched_after(
    url: str, rollout: dict[str, Any]
) -> None:
    result: HarborRolloutResult = rollout["result"]
    trace: TrainingTrace = rollout["trace"]
    assert [t.node_id for t in trace.turns] == [t.node_id for t in result.turns]
    assert [t.completion_token_ids for t in trace.turns] == [
        t.completion_token_ids for t in result.turns
    ]
    assert rollout["again"].run_id == result.run_id and rollout["again"].reward == 1.0
    runs = httpx.get(f"{url}/harbor_env/runs?status=ok", timeout=30).json()
    assert result.run_id in [r["id"] for r in runs]
    one = httpx.get(f"{url}/harbor_env/runs/{result.run_id}", timeout=30).json()
    assert one["status"] == "ok" and one["result"]["reward"] == 1.0
    downloaded = httpx.get(f"{url}/harbor_env/runs/{result.run_id}/training_trace.json")
    assert TrainingTrace.model_validate_json(downloaded.text) == trace


def test_an_eval_run_pins_its_own_sampling_and_is_never_trained_on(url: str, mini: None):
    with HarborEnv(base_url=url) as env:
        result = env.run_rollout(
            split=SPLIT, task_index=HELLO, purpose="eval", eval_sampling={"top_p": 0.5}
        )
        assert result.ok and result.reward == 1.0, (result.error, result.agent_log_tail)
        assert result.rollout_type == "eval" and not result.trainable
        assert result.turns and all(t.sampling_params == {"top_p": 0.5} for t in result.turns)
        assert not any(t.completion_token_ids for t in result.turns)  # nothing to train on
        with pytest.raises(HarborApiError, match="sampled with an eval policy"):
            env.fetch_training_trace()


def test_requests_that_could_never_run_are_refused_with_the_reason(url: str) -> None:
    with HarborEnv(base_url=url) as env:
        cases = [
            ({"split": "nope"}, "this server serves shipped"),
            ({"task_index": 7}, "has 2 task"),
            ({"harness": "nope"}, "unknown harness 'nope'"),
            ({"sandbox": "e2b"}, "process (usable)"),
            ({"keep_sandbox": True}, "keep_sandbox=True"),
            ({"sampling": {"temperature": 0.7, "top_p": 0.5}}, "requires top_p=1.0"),
            ({"sampling": {"temperature": 0.7}, "purpose": "eval"}, "purpose='eval' cannot"),
            ({"eval_sampling": {"top_p": 0}}, "eval_sampling top_p must be in (0, 1]"),
            ({"eval_sampling": {"top_k": 5}, "purpose": "train"}, "purpose='train' cannot"),
            ({"eval_sampling": {"top_k": 5}, "sampling": {"temperature": 1}}, "not both"),
            ({"model": "gpt"}, "needs llm_url"),
            ({"llm_url": "ftp://x"}, "must be an http(s) URL"),
        ]
        for arguments, reason in cases:
            with pytest.raises(ToolCallError, match=re.escape(reason)):
                env.run_rollout(**{"split": SPLIT, "task_index": HELLO, **arguments})
        with pytest.raises(ValueError, match="no run_id given"):
            env.fetch_training_trace()
        assert env.capabilities()["llm"]["ok"] is False


@pytest.fixture(scope="module")
def eval_server() -> Iterator[tuple[str, HarborService]]:
    """A server whose endpoint is the scripted engine captured at the eval level, one worker
    and one place in the queue."""
    solve = (TASKS[HELLO].path / "solution" / "solve.sh").read_text(encoding="utf-8").strip()
    script = bash_policy([solve])
    with contextlib.ExitStack() as stack:
        engine = stack.enter_context(serve_in_thread(create_engine_app(Engine(script=script))))
        level = CaptureLevel(model="openenv/tiny-test-lm")  # text: eval only
        endpoint = open_endpoint("server", f"{engine}/v1", level=level)
        service = HarborService({SPLIT: TASKS}, Endpoints(endpoint), max_running=1, max_queued=1)
        stack.callback(service.close)
        yield stack.enter_context(served(create_harbor_app(service, enable_web=False))), service


def test_a_session_that_ends_cancels_the_run_it_waited_on(
    eval_server: tuple[str, HarborService],
) -> None:
    """A session ends while its call waits (its call ran past the limit, the server stops):
    the run is cancelled and the call answers with the cancelled run."""
    _, service = eval_server
    gate = threading.Event()
    service._pool.submit(gate.wait)  # the one worker is busy: the run stays queued
    env = HarborEnvironment(service)
    env.reset()
    before = {r.id for r in service.runs()}
    answers: list[Any] = []
    call = threading.Thread(
        target=lambda: answers.append(
            env.call_tool("run_rollout", {"split": SPLIT, "task_index": HELLO})
        )
    )
    call.start()
    try:
        run = wait_for(service, lambda r: r.id not in before, "the run to be queued")
        env.close()
    finally:
        gate.set()  # the worker takes the run: it was cancelled before it started
        call.join(timeout=120)
    data = answers[0].result["data"]
    assert data["status"] == "cancelled" and data["ok"] is False and data["run_id"] == run.id
    refused = env.call_tool("run_rollout", {"split": SPLIT, "task_index": HELLO})
    assert refused.error is not None and "closed" in refused.error.message


def test_a_client_that_disconnects_mid_rollout_cancels_its_run(
    eval_server: tuple[str, HarborService],
) -> None:
    """The client's socket goes away while its run_rollout call waits: the server hears it at
    once (not when the call returns), closes the session and cancels the run."""
    from websockets.sync.client import connect

    url, service = eval_server
    gate = threading.Event()
    service._pool.submit(gate.wait)  # the one worker is busy: the run stays queued
    before = {r.id for r in service.runs()}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    call["params"] = {"name": "run_rollout", "arguments": {"split": SPLIT, "task_index": HELLO}}
    try:
        with connect(url.replace("http", "ws", 1) + "/ws") as ws:
            ws.send(json.dumps({"type": "mcp", "data": call}))
            run = wait_for(service, lambda r: r.id not in before, "the run to be queued")
        # closed with its call in flight: the run is cancelled while the worker is still busy
        deadline = time.monotonic() + 60
        while not service._cancel[run.id].is_set():
            assert time.monotonic() < deadline, "the run was not cancelled"
            threading.Event().wait(0.02)
    finally:
        gate.set()
    assert service.wait(run.id, timeout_s=120).status == "cancelled"


VISITOR, OTHER = "203.0.113.9", "192.0.2.1"


def test_a_visitor_sees_and_cancels_only_the_runs_it_started(monkeypatch) -> None:
    """Behind a proxy (a Space), a run started over /ws is its client's: the run routes list,
    show and cancel it for that client and the operator only; to another visitor it is a 404."""
    from starlette.testclient import TestClient

    monkeypatch.setenv("OPENENV_TRUSTED_PROXIES", "1")
    service = HarborService({SPLIT: TASKS}, Endpoints(), max_running=1)
    gate = threading.Event()
    service._pool.submit(gate.wait)  # the one worker is busy: runs stay queued
    app = create_harbor_app(service, enable_web=False, close_service=True)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    call["params"] = {"name": "run_rollout", "arguments": {"split": SPLIT, "task_index": HELLO}}
    answers: list[Any] = []
    with TestClient(app) as client:
        try:
            mine, theirs = {"X-Forwarded-For": VISITOR}, {"X-Forwarded-For": OTHER}

            def rollout() -> None:
                with client.websocket_connect("/ws", headers=mine) as ws:
                    ws.send_text(json.dumps({"type": "mcp", "data": call}))
                    answers.append(json.loads(ws.receive_text()))

            caller = threading.Thread(target=rollout)
            caller.start()
            run = wait_for(service, lambda r: True, "the visitor's run to be queued")
            theirs_run = RunRequest(split=SPLIT, task_index=HELLO, model="test", owner=OTHER)
            other = service.start(theirs_run)
            listed = client.get("/harbor_env/runs", headers=mine).json()
            assert [r["id"] for r in listed] == [run.id]  # not the other visitor's
            assert "owner" not in listed[0]  # nobody's address goes out
            assert client.get(f"/harbor_env/runs/{other.id}", headers=mine).status_code == 404
            refused = client.post(f"/harbor_env/runs/{run.id}/cancel", headers=theirs)
            assert refused.status_code == 404 and not service.run(run.id).finished
            cancelled = client.post(f"/harbor_env/runs/{run.id}/cancel", headers=mine)
            assert cancelled.status_code == 200
            assert {r.id for r in service.runs()} == {run.id, other.id}  # the operator's view
            service.cancel(other.id)
        finally:
            gate.set()  # the worker is free: the cancelled runs end, the app can stop
        caller.join(timeout=120)
    data = answers[0]["data"]["result"]["data"]
    assert data["status"] == "cancelled" and data["run_id"] == run.id


def test_a_visitors_own_model_url_is_refused_where_the_operator_has_not_allowed_it(
    monkeypatch,
) -> None:
    monkeypatch.delenv("OPENENV_HARBOR_OWN_URLS", raising=False)
    monkeypatch.setenv("SPACE_ID", "org/harbor")
    service = HarborService({SPLIT: TASKS}, Endpoints())
    env = HarborEnvironment(service)
    try:
        create_harbor_app(service, enable_web=False)  # on a Space: visitors' URLs off
        env.reset()
        args = {"split": SPLIT, "task_index": HELLO, "llm_url": "http://10.0.0.1/v1"}
        refused = env.call_tool("run_rollout", args)
        assert refused.error is not None and "own endpoint only" in refused.error.message
        assert service.runs() == []
    finally:
        env.close()
        service.close()


def wait_for(service: HarborService, match: Any, what: str, timeout_s: float = 120.0) -> Any:
    """The first of the service's runs that ``match``es, polled until ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = [r for r in service.runs() if match(r)]
        if found:
            return found[0]
        threading.Event().wait(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_full_queue_is_refused(eval_server: tuple[str, HarborService], mini: None) -> None:
    url, service = eval_server
    gate = threading.Event()
    service._pool.submit(gate.wait)  # the one worker is busy: a started run stays queued
    try:
        waiting = service.start(RunRequest(split=SPLIT, task_index=HELLO))
        with HarborEnv(base_url=url) as env, pytest.raises(ToolCallError, match="waiting already"):
            env.run_rollout(split=SPLIT, task_index=HELLO)
        assert service.cancel(waiting.id).id == waiting.id
    finally:
        gate.set()
    assert service.wait(waiting.id, timeout_s=120).status == "cancelled"


def test_an_eval_capture_has_a_result_but_no_training_trace(
    eval_server: tuple[str, HarborService], mini: None
) -> None:
    url, _ = eval_server
    with HarborEnv(base_url=url) as env:
        result = env.run_rollout(split=SPLIT, task_index=HELLO)
        assert result.ok and result.reward == 1.0, (result.error, result.agent_log_tail)
        assert result.model["kind"] == "server" and result.rollout_type == "eval"
        assert result.turns and not any(t.trainable or t.completion_token_ids for t in result.turns)
        with pytest.raises(HarborApiError, match="eval only"):
            env.fetch_training_trace()
    reply = httpx.get(f"{url}/harbor_env/runs/{result.run_id}/training_trace.json", timeout=30)
    assert reply.status_code == 409 and "eval only" in reply.json()["detail"]


REFERENCE = """
import json, sys
from openenv.harbor.client import HarborEnv
from openenv.harbor.models import HarborRolloutResult, HarborTaskRef

url, index = sys.argv[1], int(sys.argv[2])
with HarborEnv(base_url=url) as env:
    split = env.splits()[0]["name"]
    task = env.get_task(split, index)
    assert isinstance(task, HarborTaskRef)
    count = env.num_tasks(split)
    result = env.run_rollout(split=split, task_index=index, harness="mini-swe-agent",
                             sandbox="process")
    assert isinstance(result, HarborRolloutResult)
    try:
        env.run_rollout(split=split, task_index=index, harness="opencode", sandbox="e2b")
        refused = ""
    except RuntimeError as exc:
        refused = str(exc)
    caps = env.capabilities()
print(json.dumps({
    "split": split, "task": task.task_name, "count": count, "refused": refused,
    "reward": result.reward, "ok": result.ok, "error": result.error,
    "trainable": result.trainable, "n_turns": result.n_turns,
    "ids": [len(t.completion_token_ids) for t in result.turns],
    "logps": [len(t.per_token_logps) for t in result.turns],
    "prompts": [len(t.prompt_token_ids) for t in result.turns],
    "sandboxes": [s["name"] for s in caps["sandboxes"]],
}))
"""


@pytest.mark.compat
def test_the_reference_client_drives_our_server(url: str, mini: None, tmp_path: Path) -> None:
    done = subprocess.run([str(ensure_ref_venv()), "-c", REFERENCE, url, str(HELLO)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert (seen["split"], seen["task"], seen["count"]) == (SPLIT, "hello-file", 2)
    assert seen["ok"] and seen["reward"] == 1.0, seen["error"]
    assert seen["trainable"] and seen["n_turns"] >= 1
    assert seen["ids"] == seen["logps"] and all(seen["ids"]) and all(seen["prompts"])
    assert "sandbox 'e2b' is not available" in seen["refused"]
    assert "process" in seen["sandboxes"]


def test_the_command_serves_the_task_api_and_refuses_an_endpoint_that_does_not_answer(
    tmp_path: Path,
) -> None:
    port = free_port()
    cmd = [sys.executable, "-m", "openenv.cli", "harbor", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--max-running", "1"]  # fmt: skip
    env = {**os.environ, "NO_COLOR": "1", "ENABLE_WEB_INTERFACE": "0"}
    with server_process(cmd, port, cwd=tmp_path, env=env) as base:
        assert httpx.get(f"{base}/harbor_env/splits").json() == [{"name": SPLIT, "num_tasks": 2}]
    missing = subprocess.run(
        [sys.executable, "-m", "openenv.cli", "harbor", "serve", "--dataset",
         str(tmp_path / "no-such-folder"), "--port", str(free_port())],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert missing.returncode != 0
    assert "no such task or dataset folder" in missing.stdout + missing.stderr
    dead = f"http://127.0.0.1:{free_port()}/v1"
    done = subprocess.run(
        [sys.executable, "-m", "openenv.cli", "harbor", "serve", "--llm-url", dead,
         "--model", "m", "--port", str(free_port())],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0 and "llm:" in done.stderr + done.stdout
    assert "Serving on" not in done.stdout  # refused before binding


@pytest.mark.parametrize("variable", ["OPENENV_HARBOR_HUB_ADD", "OPENENV_HARBOR_OWN_URLS"])
def test_what_reaches_beyond_the_server_is_on_only_for_a_loopback_server(
    monkeypatch, variable: str
) -> None:
    """Adding Hub datasets (the operator's disk) and visitors' own model URLs (the server's
    network): on by default only where every visitor is the operator."""
    from openenv.harbor.app import visitors_may

    monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("HOST", raising=False)
    assert visitors_may(None, variable, "127.0.0.1") is True
    assert visitors_may(None, variable) is False  # 0.0.0.0: everyone who reaches it is a visitor
    assert visitors_may(True, variable, "0.0.0.0") is True
    assert visitors_may(False, variable, "127.0.0.1") is False
    monkeypatch.setenv(variable, "1")
    assert visitors_may(None, variable, "0.0.0.0") is True
    monkeypatch.delenv(variable)
    monkeypatch.setenv("SPACE_ID", "org/harbor")
    assert visitors_may(None, variable, "127.0.0.1") is False
