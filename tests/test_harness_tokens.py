"""Reading an engine's token ids and logprobs: vLLM's and SGLang's layouts, whole and streamed;
a shifted or impossible logprob channel is dropped rather than trained on."""

from __future__ import annotations

from typing import Any

from openenv.core.harness.capture.accumulate import StreamAccumulator
from openenv.core.harness.capture.tokens import call_tokens


def completion(**choice: Any) -> dict[str, Any]:
    base = {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    return {"choices": [{**base, **choice}]}


def entries(ids: list[int], logprob: float = -0.5) -> dict[str, Any]:
    return {"content": [{"token": f"token_id:{t}", "logprob": logprob} for t in ids]}


def test_vllm_puts_prompt_ids_at_the_top_level() -> None:
    body = {**completion(token_ids=[7, 8], logprobs=entries([7, 8])), "prompt_token_ids": [1, 2]}
    tokens = call_tokens(body)
    assert (tokens.prompt_ids, tokens.completion_ids, tokens.logprobs) == (
        [1, 2],
        [7, 8],
        [-0.5, -0.5],
    )


def test_sglang_puts_prompt_ids_on_the_choice() -> None:
    body = completion(prompt_token_ids=[3, 4, 5], token_ids=[9], logprobs=entries([9]))
    assert call_tokens(body).prompt_ids == [3, 4, 5]


def test_a_shifted_or_impossible_logprob_channel_is_dropped_not_trusted() -> None:
    shifted = completion(token_ids=[7, 8], logprobs=entries([8, 7]))
    assert call_tokens({**shifted, "prompt_token_ids": [1]}).logprobs is None
    positive = completion(token_ids=[7], logprobs=entries([7], logprob=0.25))
    assert call_tokens({**positive, "prompt_token_ids": [1]}).logprobs is None
    short = completion(token_ids=[7, 8], logprobs=entries([7]))
    assert call_tokens({**short, "prompt_token_ids": [1]}).logprobs is None


def test_a_provider_without_ids_yields_empty_lists() -> None:
    tokens = call_tokens(completion())
    assert (tokens.prompt_ids, tokens.completion_ids, tokens.logprobs) == ([], [], None)


def test_streamed_chunks_add_up_to_the_whole_completion() -> None:
    acc = StreamAccumulator()
    chunks = [
        {
            "id": "c1",
            "model": "m",
            "prompt_token_ids": [1, 2],
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}],
        },
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"content": "Let me "},
                    "token_ids": [5],
                    "logprobs": entries([5], -0.1),
                }
            ]
        },
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "function": {"name": "bash", "arguments": '{"comm'},
                            }
                        ]
                    },
                    "token_ids": [6],
                    "logprobs": entries([6], -0.2),
                }
            ]
        },
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [{"index": 0, "function": {"arguments": 'and": "ls"}'}}]
                    },
                    "token_ids": [2],
                    "logprobs": entries([2], -0.3),
                    "finish_reason": "tool_calls",
                }
            ]
        },
        {"choices": [], "usage": {"prompt_tokens": 2, "completion_tokens": 3}},
    ]
    assert [acc.feed(c) for c in chunks] == ["", "Let me ", "", "", ""]
    body = acc.body()
    tokens = call_tokens(body)
    assert tokens.prompt_ids == [1, 2] and tokens.completion_ids == [5, 6, 2]
    assert tokens.logprobs == [-0.1, -0.2, -0.3] and tokens.finish_reason == "tool_calls"
    (call,) = body["choices"][0]["message"]["tool_calls"]
    assert call == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "bash", "arguments": '{"command": "ls"}'},
    }
    assert body["usage"] == {"prompt_tokens": 2, "completion_tokens": 3}


def test_a_full_session_store_drops_idle_sessions_first_then_refuses() -> None:
    import pytest

    from openenv.core.harness.capture.sessions import SessionLimit, SessionStore

    store = SessionStore(max_sessions=2, idle_seconds=60)
    idle, busy = store.open("idle"), store.open("busy")
    idle.last_used -= 120  # nobody called with this key for two minutes
    fresh = store.open("fresh")
    assert store.get(idle.session_id) is None
    assert store.get(busy.session_id) is busy and store.get(fresh.session_id) is fresh
    with pytest.raises(SessionLimit, match="2 capture sessions are open"):
        store.open("one too many")
    assert store.get("sk-not-ours") is None and store.get("cap-" + "x" * 200) is None
