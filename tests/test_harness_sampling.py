"""A training rollout's sampling policy and call budget, held at the capture proxy.

A session opened with ``sampling`` (the trainer's temperature, nothing truncated) has it sent
upstream on every call whatever the agent asks, streamed or not, and each node records both
what the agent asked and what was sent; a policy that would truncate is refused. An eval run's
own ``eval_sampling`` is pinned the same way and its capture is eval only. A session's
call budget refuses the calls past it (429) and counts them. Upstream is the shipped test engine
behind a recorder of what it was sent, on loopback.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import Response

from openenv.core.harness.capture import (
    CaptureLevel,
    CaptureProxy,
    EvalCaptureError,
    Upstream,
    create_capture_app,
)
from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.training import TrainingTrace

TRAIN = CaptureLevel(capture_level="tokens", rollout_type="train", logprobs_mode="processed")
SCRIPT = ScriptedPolicy.model_validate({"steps": [{"content": "one"}, {"content": "two"}]})
POLICY = {"temperature": 0.7}
ASKED = {"temperature": 0.2, "top_p": 0.9}
HELLO = [{"role": "user", "content": "hello"}]


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[list[dict[str, Any]], str]]:
    """The test engine, behind a recorder of every body it is sent."""
    seen: list[dict[str, Any]] = []
    with serve_in_thread(create_engine_app(Engine(script=SCRIPT))) as engine:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Response:
            body = await request.json()
            seen.append(body)
            async with httpx.AsyncClient(timeout=120) as client:
                answer = await client.post(f"{engine}/v1/chat/completions", json=body)
            media = answer.headers.get("content-type", "application/json")
            return Response(answer.content, answer.status_code, media_type=media)

        with serve_in_thread(app) as url:
            yield seen, url


@pytest.fixture(scope="module")
def proxy(upstream: tuple[list[dict[str, Any]], str]) -> Iterator[tuple[CaptureProxy, str]]:
    capture = CaptureProxy(Upstream(f"{upstream[1]}/v1", model="tiny"), TRAIN)
    with serve_in_thread(create_capture_app(capture, admin_token="admin-secret")) as url:
        yield capture, url


def client(url: str, session_id: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key=session_id, max_retries=0)


def test_a_training_policy_is_sent_on_every_call_whatever_the_agent_asks(
    upstream: tuple[list[dict[str, Any]], str], proxy: tuple[CaptureProxy, str]
) -> None:
    seen, (capture, url) = upstream[0], proxy
    sid = capture.open_session("train", POLICY)
    agent = client(url, sid)
    before = len(seen)
    agent.chat.completions.create(model="m", messages=HELLO, **ASKED)  # type: ignore[arg-type]
    streamed = agent.chat.completions.create(
        model="m", messages=HELLO, stream=True, temperature=1.3, extra_body={"top_k": 5}
    )  # type: ignore[call-overload]
    assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices)
    sent = seen[before:]
    assert len(sent) == 2
    for body in sent:  # the whole policy: the trainer's temperature, every knob off
        assert body["temperature"] == 0.7 and body["top_p"] == 1.0 and body["top_k"] == -1
        assert body["min_p"] == 0.0 and body["repetition_penalty"] == 1.0
    result = capture.close_session(sid)
    first, second = result.nodes
    assert first.requested_sampling_params == ASKED
    assert second.requested_sampling_params == {"temperature": 1.3, "top_k": 5}
    for node in result.nodes:
        assert node.sampling_params["temperature"] == 0.7 and node.sampling_params["top_p"] == 1.0
    # the trainer reads both off each turn (the first call, retried, is an abandoned branch)
    (record,) = result.to_turn_records()
    assert record["metadata"]["requested_sampling_params"] == {"temperature": 1.3, "top_k": 5}
    assert record["metadata"]["sampling_params"]["temperature"] == 0.7
    trace = TrainingTrace.model_validate_json(result.to_training_trace().model_dump_json())
    assert trace.turns[0].metadata["sampling_params"]["temperature"] == 0.7


def test_without_a_policy_the_agents_own_sampling_is_sent_and_recorded(
    upstream: tuple[list[dict[str, Any]], str], proxy: tuple[CaptureProxy, str]
) -> None:
    seen, (capture, url) = upstream[0], proxy
    sid = capture.open_session("eval")
    client(url, sid).chat.completions.create(model="m", messages=HELLO, **ASKED)  # type: ignore[arg-type]
    assert seen[-1]["temperature"] == 0.2 and seen[-1]["top_p"] == 0.9
    assert "top_k" not in seen[-1]
    (node,) = capture.close_session(sid).nodes
    assert node.requested_sampling_params == node.sampling_params == ASKED


@pytest.mark.parametrize(
    ("policy", "said"),
    [
        ({"temperature": 0}, "finite positive temperature"),
        ({"temperature": 1.0, "top_p": 0.9}, "requires top_p=1.0"),
        ({"temperature": 1.0, "seed": 3}, "unsupported training sampling fields: seed"),
        ("hot", "must be a JSON object"),
    ],
)
def test_a_policy_that_is_not_a_training_one_is_refused(
    proxy: tuple[CaptureProxy, str], policy: Any, said: str
) -> None:
    capture, url = proxy
    with pytest.raises(ValueError, match=said):
        capture.open_session("bad", policy)
    answer = httpx.post(
        f"{url}/capture/sessions",
        headers={"Authorization": "Bearer admin-secret"},
        json={"label": "bad", "sampling": policy},
        timeout=30,
    )
    assert answer.status_code == 400 and said in answer.json()["error"]["message"]
    opened = httpx.post(
        f"{url}/capture/sessions",
        headers={"Authorization": "Bearer admin-secret"},
        json={"label": "ok", "sampling": POLICY},
        timeout=30,
    )
    assert opened.status_code == 200
    assert capture.sessions.get(opened.json()["session_id"]).sampling["temperature"] == 0.7


def test_calls_past_the_budget_are_refused_and_counted(proxy: tuple[CaptureProxy, str]) -> None:
    capture, url = proxy
    sid = capture.open_session("capped", max_calls=1)
    agent = client(url, sid)
    agent.chat.completions.create(model="m", messages=HELLO)
    for _ in range(2):
        with pytest.raises(openai.APIStatusError) as refused:
            agent.chat.completions.create(model="m", messages=HELLO)
        assert refused.value.status_code == 429
        assert "budget of 1 model calls" in refused.value.message
    result = capture.close_session(sid)
    assert len(result.nodes) == 1 and result.budget_stop_count == 2


def test_an_eval_runs_own_sampling_is_pinned_and_never_trained_on(
    upstream: tuple[list[dict[str, Any]], str], proxy: tuple[CaptureProxy, str]
) -> None:
    seen, (capture, url) = upstream[0], proxy
    sid = capture.open_session("eval", eval_sampling={"temperature": 0.0, "top_p": 0.5})
    client(url, sid).chat.completions.create(model="m", messages=HELLO, temperature=1.0)
    assert seen[-1]["temperature"] == 0.0 and seen[-1]["top_p"] == 0.5
    result = capture.close_session(sid)
    (node,) = result.nodes
    assert node.requested_sampling_params == {"temperature": 1.0}
    assert node.sampling_params == {"temperature": 0.0, "top_p": 0.5}
    assert node.has_tokens  # the engine's ids are kept for the audit, but not for training
    assert (result.rollout_type, result.eval_sampled) == ("eval", True)
    with pytest.raises(EvalCaptureError, match="sampled with an eval policy"):
        result.to_training_trace()


@pytest.mark.parametrize(
    ("policy", "said"),
    [
        ({"temperature": 3}, "temperature must be between 0 and 2"),
        ({"top_p": 0}, "top_p must be in (0, 1]"),
        ({"top_k": 0}, "top_k must be -1 (off) or a positive integer"),
        ({"min_p": 0.1}, "takes temperature, top_p, top_k only, not min_p"),
        ({"temperature": float("nan")}, "must be a finite number"),
    ],
)
def test_an_eval_policy_out_of_range_is_refused(
    proxy: tuple[CaptureProxy, str], policy: Any, said: str
) -> None:
    capture, _ = proxy
    with pytest.raises(ValueError, match=re.escape(said)):
        capture.open_session("bad", eval_sampling=policy)
    with pytest.raises(ValueError, match="not both"):
        capture.open_session("both", POLICY, eval_sampling={"temperature": 0.5})
