"""The test engine answers /v1/chat/completions in vLLM's format, over real loopback HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app
from openenv.core.harness.loopback import serve_in_thread

SCRIPT = ScriptedPolicy.model_validate({"steps": [
    {"tool_calls": [{"name": "bash", "arguments": {"command": "echo 42 > /app/answer.txt"}}]},
    {"content": "The answer is 42."},
]})  # fmt: skip
ASK = [{"role": "user", "content": "Write the answer to /app/answer.txt"}]


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    with serve_in_thread(create_engine_app(Engine())) as url:
        yield url


@pytest.fixture(scope="module")
def scripted_url() -> Iterator[str]:
    with serve_in_thread(create_engine_app(Engine(script=SCRIPT))) as url:
        yield url


@pytest.fixture(scope="module")
def raw_url() -> Iterator[str]:
    with serve_in_thread(create_engine_app(Engine(logprobs_mode="raw"))) as url:
        yield url


def chat(url: str, **body: object) -> dict:
    body = {"messages": ASK, "logprobs": True, "top_logprobs": 2, "return_token_ids": True,
            "max_tokens": 12, "seed": 7, **body}  # fmt: skip
    reply = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60)
    assert reply.status_code == 200, reply.text
    return reply.json()


def stream(url: str, **body: object) -> list[dict]:
    body = {"messages": ASK, "logprobs": True, "top_logprobs": 2, "return_token_ids": True,
            "max_tokens": 12, "seed": 7, "stream": True, **body}  # fmt: skip
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=60) as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        lines = [line[6:] for line in reply.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    return [json.loads(line) for line in lines[:-1]]


def test_tiny_model_returns_prompt_ids_completion_ids_and_aligned_logprobs(model_url: str) -> None:
    body = chat(model_url)
    choice = body["choices"][0]
    assert body["prompt_token_ids"] and all(isinstance(t, int) for t in body["prompt_token_ids"])
    assert 1 <= len(choice["token_ids"]) <= 12
    entries = choice["logprobs"]["content"]
    assert [e["token"] for e in entries] == [f"token_id:{t}" for t in choice["token_ids"]]
    assert all(e["logprob"] <= 0 and len(e["top_logprobs"]) == 2 for e in entries)
    assert body["usage"]["completion_tokens"] == len(choice["token_ids"])
    assert choice["finish_reason"] in {"stop", "length"}


def test_same_seed_samples_the_same_tokens_and_another_seed_differs(model_url: str) -> None:
    a, b = chat(model_url, seed=3), chat(model_url, seed=3)
    c = chat(model_url, seed=4, max_tokens=24)
    assert a["choices"][0]["token_ids"] == b["choices"][0]["token_ids"]
    assert c["choices"][0]["token_ids"][:12] != a["choices"][0]["token_ids"]


def test_ids_and_logprobs_only_when_asked(model_url: str) -> None:
    body = chat(model_url, logprobs=False, return_token_ids=False, top_logprobs=None)
    assert "prompt_token_ids" not in body and "token_ids" not in body["choices"][0]
    assert body["choices"][0]["logprobs"] is None


def test_streaming_carries_the_same_tokens_as_the_whole_answer(model_url: str) -> None:
    whole = chat(model_url, seed=11)
    chunks = stream(model_url, seed=11)
    assert chunks[0]["prompt_token_ids"] == whole["prompt_token_ids"]
    ids = [t for c in chunks if c["choices"] for t in c["choices"][0].get("token_ids", [])]
    assert ids == whole["choices"][0]["token_ids"]
    assert chunks[-1]["choices"][0]["finish_reason"] == whole["choices"][0]["finish_reason"]


def test_processed_logprobs_gap_halves_at_double_temperature(model_url: str, raw_url: str) -> None:
    def gap(url: str, t: float) -> float:
        top = chat(url, temperature=t, max_tokens=1)["choices"][0]["logprobs"]["content"][0]
        first, second = top["top_logprobs"]
        return first["logprob"] - second["logprob"]

    assert gap(model_url, 1.0) / gap(model_url, 2.0) == pytest.approx(2.0, rel=1e-3)
    assert gap(raw_url, 1.0) / gap(raw_url, 2.0) == pytest.approx(1.0, rel=1e-3)


def test_scripted_engine_replays_tool_call_then_answer(scripted_url: str) -> None:
    first = chat(scripted_url, max_tokens=200)
    message = first["choices"][0]["message"]
    assert first["choices"][0]["finish_reason"] == "tool_calls"
    (call,) = message["tool_calls"]
    assert call["function"]["name"] == "bash"
    assert json.loads(call["function"]["arguments"]) == {"command": "echo 42 > /app/answer.txt"}
    history = [*ASK, message, {"role": "tool", "tool_call_id": call["id"], "content": ""}]
    second = chat(scripted_url, messages=history, max_tokens=200)
    assert second["choices"][0]["message"]["content"] == "The answer is 42."
    # The engine's own tokenisation: turn 2's prompt extends turn 1's prompt and completion.
    before = first["prompt_token_ids"] + first["choices"][0]["token_ids"]
    assert second["prompt_token_ids"][: len(before)] == before


def test_scripted_streaming_sends_the_tool_call_as_a_delta(scripted_url: str) -> None:
    chunks = stream(scripted_url, max_tokens=200)
    calls = [
        d["tool_calls"] for c in chunks for d in [c["choices"][0]["delta"]] if "tool_calls" in d
    ]
    assert calls and calls[0][0]["function"]["name"] == "bash"
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_a_truncated_reply_says_length(scripted_url: str) -> None:
    body = chat(scripted_url, max_tokens=3)
    assert body["choices"][0]["finish_reason"] == "length"
    assert len(body["choices"][0]["token_ids"]) == 3


def test_a_malformed_request_is_refused_with_a_reason(model_url: str) -> None:
    reply = httpx.post(f"{model_url}/v1/chat/completions", json={"messages": []}, timeout=30)
    assert reply.status_code == 400
    assert reply.json()["error"]["message"].startswith("invalid chat request: messages:")
