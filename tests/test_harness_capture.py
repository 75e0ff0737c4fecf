"""The capture proxy between real agent SDKs and the test engine, over loopback HTTP.

Each dialect is spoken by its vendor's own client (openai, anthropic, google-genai); every call
must come back in that dialect and be recorded with the engine's own token ids, linked into one
conversation by token prefix.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

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

COMMAND = {"command": "echo 42 > /app/answer.txt"}
SCRIPT = ScriptedPolicy.model_validate(
    {"steps": [{"tool_calls": [{"name": "bash", "arguments": COMMAND}]}, {"content": "Done: 42."}]}
)
BASH = {
    "name": "bash",
    "description": "Run a shell command",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
}
TASK = "Write the answer to /app/answer.txt"
TOOLS: Any = [{"type": "function", "function": BASH}]
TRAIN = CaptureLevel(capture_level="tokens", rollout_type="train", logprobs_mode="processed")


@pytest.fixture(scope="module")
def engine_url() -> Iterator[str]:
    with serve_in_thread(create_engine_app(Engine(script=SCRIPT))) as url:
        yield url


@pytest.fixture(scope="module")
def proxy(engine_url: str) -> Iterator[tuple[CaptureProxy, str]]:
    capture = CaptureProxy(Upstream(f"{engine_url}/v1", model="tiny"), TRAIN, max_body_bytes=65536)
    with serve_in_thread(create_capture_app(capture)) as url:
        yield capture, url


def oai(proxy: tuple[CaptureProxy, str]) -> tuple[openai.OpenAI, str]:
    capture, url = proxy
    sid = capture.open_session("test")
    return openai.OpenAI(base_url=f"{url}/v1", api_key=sid, max_retries=0), sid


def assert_one_conversation(capture: CaptureProxy, sid: str, dialect: str) -> None:
    result = capture.close_session(sid)
    first, second = result.nodes
    assert {first.dialect, second.dialect} == {dialect}
    assert first.parent_id is None and second.parent_id == first.node_id
    assert second.linked_by == "tokens"
    assert second.prompt_token_ids[: len(first.full_ids())] == first.full_ids()
    for node in result.nodes:
        assert node.per_token_logps and len(node.per_token_logps) == len(node.completion_token_ids)
    assert result.rollout_type == "train" and result.n_discarded == 0


# -- chat completions ---------------------------------------------------------------------------


def test_chat_tool_call_then_answer_is_one_conversation_of_engine_tokens(
    proxy: tuple[CaptureProxy, str], engine_url: str
) -> None:
    client, sid = oai(proxy)
    tools = [{"type": "function", "function": BASH}]
    messages: list[Any] = [{"role": "user", "content": TASK}]
    first = client.chat.completions.create(model="agent-model", messages=messages, tools=tools)
    call = first.choices[0].message.tool_calls[0]
    assert call.function.name == "bash" and json.loads(call.function.arguments) == COMMAND
    assert first.model == "agent-model"  # the agent's own model name comes back
    assert getattr(first, "prompt_token_ids", None) is None  # capture fields stay in the proxy
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": ""},
    ]
    second = client.chat.completions.create(model="agent-model", messages=messages, tools=tools)
    assert second.choices[0].message.content == "Done: 42."
    node = proxy[0].result(sid).nodes[1]
    direct = httpx.post(
        f"{engine_url}/v1/chat/completions",
        timeout=60,
        json={
            "messages": node.messages,
            "tools": tools,
            "return_token_ids": True,
        },
    ).json()
    assert node.prompt_token_ids == direct["prompt_token_ids"]
    assert node.completion_token_ids == direct["choices"][0]["token_ids"]
    assert_one_conversation(proxy[0], sid, "chat")


def test_chat_streaming_replays_content_and_tool_calls(proxy: tuple[CaptureProxy, str]) -> None:
    client, sid = oai(proxy)
    chunks = list(
        client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": TASK}],
            tools=[{"type": "function", "function": BASH}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    calls = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]
    assert calls[0].function.name == "bash"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].usage and chunks[-1].usage.completion_tokens > 0
    assert len(proxy[0].close_session(sid).nodes) == 1


def test_a_retry_is_a_sibling_and_the_abandoned_branch_is_discarded(
    proxy: tuple[CaptureProxy, str],
) -> None:
    client, sid = oai(proxy)
    ask = [{"role": "user", "content": TASK}]
    first = client.chat.completions.create(model="m", messages=ask)
    follow = [
        *ask,
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "user", "content": "again"},
    ]
    client.chat.completions.create(model="m", messages=follow)
    client.chat.completions.create(model="m", messages=follow)  # the agent retried
    result = proxy[0].close_session(sid)
    a, b, c = result.nodes
    assert b.parent_id == c.parent_id == a.node_id
    assert [n.status for n in result.nodes] == ["kept", "discarded", "kept"]
    records = result.to_turn_records()
    assert [r["metadata"]["node_id"] for r in records] == [a.node_id, c.node_id]
    assert records[1]["loss_mask"] == [0] * len(c.prompt_token_ids) + [1] * len(
        c.completion_token_ids
    )
    trace = TrainingTrace.model_validate_json(result.to_training_trace().model_dump_json())
    assert [t.completion_token_ids for t in trace.turns] == [
        a.completion_token_ids,
        c.completion_token_ids,
    ]


# -- OpenAI Responses ---------------------------------------------------------------------------


def test_responses_dialect_function_call_round_trip(proxy: tuple[CaptureProxy, str]) -> None:
    client, sid = oai(proxy)
    tools: Any = [{"type": "function", **BASH}]
    first = client.responses.create(
        model="codex-model", input=TASK, tools=tools, instructions="You are codex."
    )
    (item,) = first.output
    assert item.type == "function_call" and json.loads(item.arguments) == COMMAND
    follow: Any = [
        {"role": "user", "content": TASK},
        {
            "type": "function_call",
            "call_id": item.call_id,
            "name": item.name,
            "arguments": item.arguments,
        },
        {"type": "function_call_output", "call_id": item.call_id, "output": "ok"},
    ]
    with client.responses.stream(
        model="codex-model", input=follow, tools=tools, instructions="You are codex."
    ) as events:
        kinds = [e.type for e in events]
        final = events.get_final_response()
    assert final.output_text == "Done: 42."
    assert "response.output_text.delta" in kinds and kinds[-1] == "response.completed"
    assert_one_conversation(proxy[0], sid, "responses")


# -- Anthropic Messages -------------------------------------------------------------------------


def test_anthropic_messages_tool_use_round_trip(proxy: tuple[CaptureProxy, str]) -> None:
    capture, url = proxy
    sid = capture.open_session("claude")
    client = anthropic.Anthropic(base_url=url, api_key=sid, max_retries=0)
    tools: Any = [{"name": "bash", "description": "Run", "input_schema": BASH["parameters"]}]
    ask: Any = [{"role": "user", "content": TASK}]
    first = client.messages.create(
        model="claude-x", max_tokens=200, messages=ask, tools=tools, system="You are claude."
    )
    (block,) = first.content
    assert block.type == "tool_use" and block.input == COMMAND and first.stop_reason == "tool_use"
    follow: Any = [
        *ask,
        {"role": "assistant", "content": [block.model_dump()]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": block.id, "content": "ok"}],
        },
    ]
    with client.messages.stream(
        model="claude-x", max_tokens=200, messages=follow, tools=tools, system="You are claude."
    ) as stream:
        final = stream.get_final_message()
    assert final.content[0].text == "Done: 42." and final.stop_reason == "end_turn"
    assert_one_conversation(capture, sid, "messages")


# -- Google generateContent ---------------------------------------------------------------------


def test_google_generate_content_function_call_round_trip(
    proxy: tuple[CaptureProxy, str],
) -> None:
    genai = pytest.importorskip("google.genai")
    types = genai.types
    capture, url = proxy
    sid = capture.open_session("gemini")
    client = genai.Client(api_key=sid, http_options=types.HttpOptions(base_url=url))
    config = types.GenerateContentConfig(
        system_instruction="You are gemini.",
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(**BASH)])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    ask = [types.Content(role="user", parts=[types.Part(text=TASK)])]
    first = client.models.generate_content(model="gemini-x", contents=ask, config=config)
    (call,) = first.function_calls
    assert call.name == "bash" and call.args == COMMAND
    follow = [
        *ask,
        first.candidates[0].content,
        types.Content(
            role="user",
            parts=[types.Part.from_function_response(name="bash", response={"output": "ok"})],
        ),
    ]
    chunks = list(
        client.models.generate_content_stream(model="gemini-x", contents=follow, config=config)
    )
    assert "".join(c.text or "" for c in chunks) == "Done: 42."
    assert_one_conversation(capture, sid, "generateContent")


# -- the door: keys, bounds, paths --------------------------------------------------------------


def test_unknown_or_ended_session_is_refused_with_401(proxy: tuple[CaptureProxy, str]) -> None:
    capture, url = proxy
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    for headers in ({}, {"Authorization": "Bearer sk-made-up"}, {"x-api-key": "cap-nope"}):
        reply = httpx.post(f"{url}/v1/chat/completions", json=body, headers=headers, timeout=30)
        assert reply.status_code == 401
        assert "unknown capture session" in reply.json()["error"]["message"]
    sid = capture.open_session()
    capture.close_session(sid)
    with pytest.raises(anthropic.AuthenticationError):
        anthropic.Anthropic(base_url=url, api_key=sid, max_retries=0).messages.create(
            model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
        )


def test_oversized_body_and_unknown_path_are_refused(proxy: tuple[CaptureProxy, str]) -> None:
    capture, url = proxy
    headers = {"Authorization": f"Bearer {capture.open_session()}"}
    big = {"model": "m", "messages": [{"role": "user", "content": "x" * 70000}]}
    reply = httpx.post(f"{url}/v1/chat/completions", json=big, headers=headers, timeout=30)
    assert reply.status_code == 413 and "65536 bytes" in reply.json()["error"]["message"]
    reply = httpx.post(f"{url}/v1/completions", json={}, headers=headers, timeout=30)
    assert reply.status_code == 404 and "/v1/chat/completions" in reply.json()["error"]["message"]
    reply = httpx.post(f"{url}/v1/messages", content=b"{not json", headers=headers, timeout=30)
    assert reply.status_code == 400 and reply.json()["type"] == "error"


# -- a strict hosted provider: parameter fixes and the operator's key ---------------------------


@pytest.fixture(scope="module")
def provider() -> Iterator[tuple[list[dict[str, Any]], str]]:
    """A provider that refuses max_tokens, non-default temperature and logprobs, like OpenAI's
    current models; it records what it was sent."""
    seen: list[dict[str, Any]] = []
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append({"auth": request.headers.get("authorization"), "body": body})
        if "max_tokens" in body:
            return JSONResponse(
                {
                    "error": {
                        "message": "Unsupported parameter: 'max_tokens' is "
                        "not supported with this model. Use 'max_completion_tokens' "
                        "instead."
                    }
                },
                400,
            )
        if body.get("tools") and body.get("reasoning_effort") != "none":
            return JSONResponse(
                {
                    "error": {
                        "message": "Function tools with reasoning_effort are "
                        "not supported for this model in /v1/chat/completions. Please "
                        "use /v1/responses or set reasoning_effort to 'none'."
                    }
                },
                400,
            )
        if body.get("temperature", 1) != 1:
            return JSONResponse(
                {
                    "error": {
                        "message": "Unsupported value: 'temperature' does not "
                        "support 0.2 with this model. Only the default (1) value is "
                        "supported."
                    }
                },
                400,
            )
        reply = {"role": "assistant", "content": "hello"}
        return JSONResponse(
            {
                "id": "x",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [{"index": 0, "message": reply, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 1},
            }
        )

    with serve_in_thread(app) as url:
        yield seen, url


def test_named_parameter_fixes_are_applied_cached_and_reported(
    provider: tuple[list[dict[str, Any]], str],
) -> None:
    seen, provider_url = provider
    capture = CaptureProxy(Upstream(f"{provider_url}/v1", api_key="operator-secret", model="gpt"))
    with serve_in_thread(create_capture_app(capture)) as url:
        sid = capture.open_session()
        client = openai.OpenAI(base_url=f"{url}/v1", api_key=sid, max_retries=0)
        ask: Any = [{"role": "user", "content": "hi"}]
        for _ in range(2):
            reply = client.chat.completions.with_raw_response.create(
                model="m", messages=ask, max_tokens=50, temperature=0.2, tools=TOOLS
            )
            assert reply.parse().choices[0].message.content == "hello"
            assert "operator-secret" not in reply.http_response.text
            assert "operator-secret" not in str(reply.headers)
        result = capture.close_session(sid)
    assert len(seen) == 5  # 4 tries for the first call, then the cached fixes at once
    last = seen[-1]["body"]
    assert "max_completion_tokens" in last and "temperature" not in last
    assert last["reasoning_effort"] == "none"
    names = ["max_completion_tokens", "reasoning_effort_none", "drop_temperature"]
    assert [f.name for f in result.fixes] == names
    assert "reasoning is off" in result.fixes[1].effect
    assert all(s["auth"] == "Bearer operator-secret" for s in seen)
    assert "logprobs" not in seen[-1]["body"]  # an eval-level proxy asks for no tokens
    assert result.rollout_type == "eval" and result.nodes[0].linked_by == "root"
    with pytest.raises(EvalCaptureError, match="eval only"):
        result.to_turn_records()


# -- the graph without token ids: message prefixes ----------------------------------------------


def _node(n: int, messages: list[dict[str, Any]], reply: str) -> Any:
    from openenv.core.harness.capture.graph import CaptureNode

    return CaptureNode(
        node_id=f"n{n}",
        seq=n,
        dialect="chat",
        messages=messages,
        reply={"role": "assistant", "content": reply},
    )


def test_without_ids_calls_link_by_message_prefix_and_subagents_are_roots() -> None:
    from openenv.core.harness.capture.graph import RolloutGraph

    graph = RolloutGraph()
    main = [{"role": "system", "content": "main"}, {"role": "user", "content": TASK}]
    graph.add(_node(1, main, "step one"))
    graph.add(_node(2, [{"role": "system", "content": "subagent"}], "found it"))
    turn2 = [
        *main,
        {"role": "assistant", "content": " step one "},
        {"role": "user", "content": "go"},
    ]
    graph.add(_node(3, turn2, "first try"))
    graph.add(_node(4, turn2, "second try"))  # a retry: same parent, the first abandoned
    by_id = {n.node_id: n for n in graph.nodes}
    assert by_id["n3"].parent_id == by_id["n4"].parent_id == "n1"
    assert by_id["n3"].linked_by == "messages"
    assert by_id["n2"].parent_id is None  # the subagent's own conversation
    assert [n.node_id for n in graph.kept()] == ["n1", "n2", "n4"]
    assert by_id["n3"].status == "discarded"


def test_a_crashed_engine_fails_the_call_with_the_reason_and_budgets_hold() -> None:
    from openenv.core.harness.loopback import free_port

    capture = CaptureProxy(Upstream(f"http://127.0.0.1:{free_port()}/v1"), TRAIN)
    with serve_in_thread(create_capture_app(capture)) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key=capture.open_session(), max_retries=0)
        with pytest.raises(openai.APIStatusError) as failed:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert failed.value.status_code == 502
        assert "endpoint unreachable: ConnectError" in failed.value.message
        full = capture.sessions.open(max_calls=0).session_id
        reply = httpx.post(
            f"{url}/v1/chat/completions",
            headers={"x-api-key": full},
            timeout=30,
            json={"messages": [{"role": "user", "content": "x"}]},
        )
        assert reply.status_code == 429 and "budget of 0 model calls" in reply.text


def test_a_streamed_call_is_relayed_as_it_arrives_and_captured_whole(
    proxy: tuple[CaptureProxy, str],
) -> None:
    client, sid = oai(proxy)
    ask: Any = [{"role": "user", "content": TASK}]
    first = client.chat.completions.create(model="m", messages=ask)
    follow = [*ask, first.choices[0].message.model_dump(exclude_none=True)]
    follow.append({"role": "user", "content": "and now?"})
    chunks = list(client.chat.completions.create(model="m", messages=follow, stream=True))
    pieces = [
        c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content
    ]
    assert "".join(pieces) == "Done: 42." and len(pieces) > 1  # token by token, not at the end
    whole = client.chat.completions.create(model="m", messages=follow)  # the same call, whole
    result = proxy[0].close_session(sid)
    streamed, again = result.nodes[1], result.nodes[2]
    assert streamed.parent_id == again.parent_id == result.nodes[0].node_id
    assert streamed.prompt_token_ids == again.prompt_token_ids
    assert streamed.completion_token_ids == again.completion_token_ids
    assert streamed.per_token_logps == pytest.approx(again.per_token_logps)
    assert streamed.reply["content"] == whole.choices[0].message.content


def test_parallel_calls_in_one_session_get_their_own_nodes(proxy: tuple[CaptureProxy, str]) -> None:
    capture, url = proxy
    sid = capture.open_session("parallel subagents")
    headers = {"Authorization": f"Bearer {sid}"}

    async def call(client: httpx.AsyncClient, i: int) -> int:
        body = {
            "model": "m",
            "messages": [
                {"role": "system", "content": f"subagent {i}"},
                {"role": "user", "content": TASK},
            ],
            "stream": i % 2 == 0,
        }
        reply = await client.post(f"{url}/v1/chat/completions", json=body, headers=headers)
        return reply.status_code

    async def together() -> list[int]:
        async with httpx.AsyncClient(timeout=60) as client:
            return await asyncio.gather(*(call(client, i) for i in range(6)))

    assert asyncio.run(together()) == [200] * 6
    result = capture.close_session(sid)
    assert sorted(n.node_id for n in result.nodes) == [f"n{i:04d}" for i in range(1, 7)]
    assert result.n_roots == 6 and result.n_discarded == 0  # six subagents, six conversations


def test_each_dialect_carries_tool_choice_and_stop_sequences_upstream() -> None:
    from openenv.core.harness.capture.dialects import DIALECTS

    forced = {"type": "function", "function": {"name": "bash"}}
    responses = DIALECTS["responses"].to_chat(
        {"input": "x", "tool_choice": {"type": "function", "name": "bash"}}
    )
    assert responses.chat["tool_choice"] == forced
    claude = DIALECTS["messages"].to_chat(
        {
            "messages": [{"role": "user", "content": "x"}],
            "max_tokens": 9,
            "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
            "stop_sequences": ["\nHuman:"],
        }
    )
    assert claude.chat["tool_choice"] == "required" and claude.chat["parallel_tool_calls"] is False
    assert claude.chat["stop"] == ["\nHuman:"] and claude.chat["max_tokens"] == 9
    gemini = DIALECTS["generateContent"].to_chat(
        {
            "contents": [{"role": "user", "parts": [{"text": "x"}]}],
            "toolConfig": {
                "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["bash"]}
            },
            "generationConfig": {"stopSequences": ["END"], "maxOutputTokens": 7},
        },
        path_model="gemini-x",
    )
    assert gemini.chat["tool_choice"] == forced and gemini.chat["stop"] == ["END"]
    assert gemini.chat["max_tokens"] == 7 and gemini.model == "gemini-x"
