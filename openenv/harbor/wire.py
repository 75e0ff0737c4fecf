"""What the Harbor server sends: runs as ``HarborRolloutResult``s, tasks as ``HarborTaskRef``s,
and the server's capabilities (harnesses, sandboxes, splits, the model endpoint).

A ``[TRAIN]`` run's turns are its validated :class:`~openenv.core.harness.TrainingTrace` (the
engine's ids, processed logprobs, loss masks); an ``[EVAL ONLY]`` run's turns carry the text and
tool calls with empty token fields and ``trainable`` false, as the reference does.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from openenv.core.harness.capture import CaptureNode, CaptureResult
from openenv.core.harness.harnesses import HARNESSES, get_harness
from openenv.core.harness.rollout import SANDBOXES
from openenv.core.harness.tasks import HarborTask
from openenv.harbor.models import HarborConversation, HarborRolloutResult, HarborTaskRef, HarborTurn
from openenv.harbor.service import HarborService, RunRecord

MAX_INSTRUCTION_CHARS = 8000  # of a task ref (the whole instruction: the task's own page)
HOSTED_SANDBOXES = ("e2b", "modal", "daytona")
MODEL_NOTES = {
    "server": "the model of this server's endpoint (--llm-url)",
    "url": "the model at the llm_url given with the call",
    "test": "the shipped scripted TEST engine (not a model): it replayed the task's own "
    "solution/solve.sh through the harness's shell tool",
    "hf": "a model on Hugging Face Inference Providers (the router), billed to the token given",
}
# How a rollout that did not end ok is named on the wire: Harbor's own exception names where it
# has one (a trainer tells a timed-out agent, whose captured turns still train, from a failure).
EXCEPTION_TYPES = {
    "timeout": "AgentTimeoutError",
    "harness_error": "HarnessError",
    "engine_error": "EngineError",
    "verifier_error": "VerifierError",
    "cancelled": "Cancelled",
    "error": "RolloutError",
}


def task_ref(split: str, index: int, task: HarborTask) -> HarborTaskRef:
    """One task as the Task API lists it (no path of the server's disk, no answer)."""
    text = task.instruction
    if len(text) > MAX_INSTRUCTION_CHARS:
        text = text[:MAX_INSTRUCTION_CHARS] + "\n…"
    return HarborTaskRef(
        index=index,
        task_id=f"{split}/{task.name}",
        task_name=task.name,
        dataset=split,
        instruction=text,
    )


def rollout_result(record: RunRecord) -> HarborRolloutResult:
    """A run (finished or not) as the reference's result shape."""
    result = record.result
    capture = result.capture if result else None
    turns = _turns(result.trace.turns if result and result.trace else None, capture)
    kind = str(record.model.get("kind", ""))
    findings = [f"model: {MODEL_NOTES[kind]}"] if kind in MODEL_NOTES else []
    if capture is not None and capture.rollout_type != "train":
        findings.append(
            f"eval only (capture_level={capture.capture_level}): the endpoint returned no "
            "usable token ids or processed logprobs, so no turn is trainable"
        )
    ok = record.status == "ok"
    timings = dict(result.timings) if result else {}
    reward = result.reward if result else None
    return HarborRolloutResult(
        task_id=f"{record.split}/{record.task}",
        task_name=record.task,
        dataset=record.split,
        harness=record.harness,
        sandbox=record.sandbox,
        trial_name=record.id,
        session_id=capture.session_id if capture else "",
        reward=reward,
        rewards={"reward": reward} if reward is not None else {},
        reward_key="reward",
        rollout_type=capture.rollout_type if capture else "eval",
        capture_level=capture.capture_level if capture else "text",
        param_fixes=[f"{f.name}: {f.effect}" for f in capture.fixes] if capture else [],
        turns=turns,
        conversations=_conversations(capture),
        n_turns=len(turns),
        n_roots=capture.n_roots if capture else 0,
        budget_stop_count=capture.budget_stop_count if capture else 0,
        n_trainable_tokens=sum(sum(t.loss_mask or []) for t in turns if t.trainable),
        multi_turn=len(turns) > 1,
        findings=findings,
        wall_s=timings.get("total_s", 0.0),
        phase_timings=timings,
        agent_log_tail=result.log_tail if result else "",
        ok=ok,
        error=None if ok else (record.reason or record.status),
        exception_type=None if ok else _exception_type(record),
        run_id=record.id,
        status=record.status,
        model=dict(record.model),
        verifier_output=result.verifier_output if result else "",
    )


def _exception_type(record: RunRecord) -> str:
    """Why a run did not end ok, by name: the rollout's own status when it has one."""
    status = record.result.status if record.result is not None else record.status
    return EXCEPTION_TYPES.get(status, status)


def _reply_parts(reply: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    content = reply.get("content")
    if isinstance(content, list):
        text = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    else:
        text = content if isinstance(content, str) else ""
    calls = []
    for call in reply.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") or {}
        if function.get("name"):
            calls.append({"name": function["name"], "arguments": function.get("arguments", "")})
    return text, calls


def _turns(trace_turns: Any, capture: CaptureResult | None) -> list[HarborTurn]:
    if capture is None:
        return []
    nodes = {n.node_id: n for n in capture.nodes}
    if trace_turns is not None:  # [TRAIN]: the validated trace, each call once
        rows = []
        for i, t in enumerate(trace_turns):
            node = nodes.get(t.node_id)
            text, calls = _reply_parts(t.response)
            rows.append(
                HarborTurn(
                    turn=i,
                    node_id=t.node_id,
                    finish_reason=node.finish_reason if node else None,
                    prompt_token_ids=t.prompt_token_ids,
                    completion_token_ids=t.completion_token_ids,
                    per_token_logps=t.per_token_logps,
                    loss_mask=t.loss_mask,
                    n_tools=len(calls),
                    trainable=any(t.loss_mask),
                    text=text,
                    tool_calls=calls,
                    request_messages=list(t.request.get("messages") or []),
                    **_sampling(node),
                )
            )
        return rows
    kept = [n for n in capture.nodes if n.status == "kept"]
    return [_eval_turn(i, n) for i, n in enumerate(kept)]


def _eval_turn(index: int, node: CaptureNode) -> HarborTurn:
    text, calls = _reply_parts(node.reply)
    return HarborTurn(
        turn=index,
        node_id=node.node_id,
        finish_reason=node.finish_reason,
        n_tools=len(calls),
        trainable=False,
        text=text,
        tool_calls=calls,
        request_messages=list(node.messages),
        **_sampling(node),
    )


def _sampling(node: CaptureNode | None) -> dict[str, dict[str, Any]]:
    if node is None:
        return {}
    return {
        "sampling_params": dict(node.sampling_params),
        "requested_sampling_params": dict(node.requested_sampling_params),
    }


def _conversations(capture: CaptureResult | None) -> list[HarborConversation]:
    """One per root: the deepest kept call's messages and its reply."""
    if capture is None:
        return []
    by_id = {n.node_id: n for n in capture.nodes}

    def root_of(node: CaptureNode) -> str:
        seen = 0
        while node.parent_id in by_id and seen < len(by_id):
            node, seen = by_id[node.parent_id], seen + 1
        return node.node_id

    best: dict[str, tuple[int, CaptureNode]] = {}
    counts: dict[str, int] = {}
    for node in capture.nodes:
        if node.status != "kept":
            continue
        root = root_of(node)
        counts[root] = counts.get(root, 0) + 1
        if root not in best or len(node.messages) >= best[root][0]:
            best[root] = (len(node.messages), node)
    out = []
    for root, (_, node) in best.items():
        reply = {**node.reply, "role": node.reply.get("role", "assistant")}
        messages = [*node.messages, reply] if node.reply else list(node.messages)
        out.append(HarborConversation(root_id=root, n_turns=counts[root], messages=messages))
    return out


def sandbox_status() -> list[dict[str, Any]]:
    """Each sandbox and whether this server can run rollouts in it, with the reason if not."""
    rows = []
    for name in SANDBOXES:
        available, detail = _local_sandbox(name)
        rows.append({"name": name, "available": available, "detail": detail})
    for name in HOSTED_SANDBOXES:
        rows.append({"name": name, "available": False, "detail": "not supported by this server"})
    return rows


def _local_sandbox(name: str) -> tuple[bool, str]:
    if name == "process":
        from openenv.core.harness.sandboxes import process_sandbox_status

        return process_sandbox_status()
    if importlib.util.find_spec("docker") is None:
        return False, "the Docker SDK is not installed (the docker extra)"
    import docker

    try:
        docker.from_env(timeout=5).ping()
    except Exception as exc:  # the SDK raises several unrelated types for "no daemon"
        return False, f"the Docker daemon is not reachable ({type(exc).__name__})"
    return True, "Docker daemon reachable"


def sandboxes_line(rows: list[dict[str, Any]]) -> str:
    """``process (usable), docker (the Docker daemon is not reachable...)``: for refusals."""
    return ", ".join(
        f"{r['name']} ({'usable' if r['available'] else r['detail']})"
        for r in rows
        if r["name"] in SANDBOXES
    )


def harness_status() -> list[dict[str, Any]]:
    """Each harness this server runs, and whether it is installed."""
    rows = []
    for name in HARNESSES:
        harness = get_harness(name)
        problem = harness.problem()
        rows.append(
            {
                "name": name,
                "dialect": str(getattr(harness, "dialect", "")),
                "kind": "installed",
                "status": "validated" if problem is None else f"unsupported:{problem}",
                "installed": problem is None,
                "detail": problem or "installed",
                "docker_needs": harness.container_needs(),  # what a task's image must hold
            }
        )
    return rows


def capabilities(service: HarborService) -> dict[str, Any]:
    """Harnesses, sandboxes, splits and the model endpoint (the ``capabilities`` tool)."""
    server = service.endpoints.server
    if server is not None:
        llm: dict[str, Any] = {"ok": True, "reachable": True, **server.describe()}
    else:
        llm = {
            "ok": False,
            "reachable": False,
            "detail": "started without --llm-url: a rollout names its own llm_url, or runs on "
            "the scripted TEST engine when its task has a solution",
        }
    llm["urls_allowed"] = service.endpoints.allow_urls
    return {
        "harnesses": harness_status(),
        "sandboxes": sandbox_status(),
        "datasets": [{"name": s["name"], "num_tasks": s["n_tasks"]} for s in service.splits()],
        "llm": llm,
        "test_engine": True,
    }
